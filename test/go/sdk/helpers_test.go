// Package sdk_test tests the generated Go module through its public API only, against fake
// services: an httptest server for GraphQL and REST, an in-process grpc-go server for gRPC.
package sdk_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	identity "github.com/identity-interface/identity-go/v2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

const secret = "test-secret"

var ctx = context.Background()

// recorded is one request a fake service received.
type recorded struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   map[string]any
}

// reply is what a fake service answers.
type reply struct {
	status  int
	headers map[string]string
	body    string
	// drop closes the connection without an answer, as a service that dies mid-call.
	drop bool
}

// httpService is a fake GraphQL and REST service: it records every request and answers with
// answer(request number, request).
type httpService struct {
	url      string
	mu       sync.Mutex
	requests []recorded
}

func (s *httpService) log() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.requests...)
}

func newHTTPService(t *testing.T, answer func(n int, r recorded) reply) *httpService {
	t.Helper()
	s := &httpService{}
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		rec := recorded{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone()}
		if len(data) > 0 {
			if err := json.Unmarshal(data, &rec.Body); err != nil {
				t.Errorf("request body is not a JSON object: %s", data)
			}
		}
		s.mu.Lock()
		s.requests = append(s.requests, rec)
		n := len(s.requests)
		s.mu.Unlock()
		out := answer(n, rec)
		if out.drop {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Errorf("cannot drop the connection: %v", err)
				return
			}
			conn.Close()
			return
		}
		for key, value := range out.headers {
			w.Header().Set(key, value)
		}
		if out.status == 0 {
			out.status = http.StatusOK
		}
		w.WriteHeader(out.status)
		io.WriteString(w, out.body)
	}))
	t.Cleanup(server.Close)
	s.url = server.URL
	return s
}

// ok answers body with 200.
func ok(body string) func(int, recorded) reply {
	return func(int, recorded) reply { return reply{body: body} }
}

// graphqlData answers {"data": {operation: body}}.
func graphqlData(operation, body string) string {
	return `{"data":{"` + operation + `":` + body + `}}`
}

const metaJSON = `{"version":"2.4.0","client_id":"c","enabled_protocols":["graphql","rest","grpc"],"grpc_port":9091}`

func admin(t *testing.T, url string, opts ...identity.AdminOption) *identity.AdminClient {
	t.Helper()
	client, err := identity.NewAdminClient(url, secret, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	return client
}

// apiError is err as an *APIError, or fails the test.
func apiError(t *testing.T, err error) *identity.APIError {
	t.Helper()
	apiErr, isAPIError := err.(*identity.APIError)
	if !isAPIError {
		t.Fatalf("want an *APIError, got %T: %v", err, err)
	}
	return apiErr
}

func wantError(t *testing.T, err error, code identity.ErrorCode, message string) *identity.APIError {
	t.Helper()
	apiErr := apiError(t, err)
	if apiErr.Code != code || (message != "" && apiErr.Message != message) {
		t.Fatalf("want %s %q, got %s %q", code, message, apiErr.Code, apiErr.Message)
	}
	return apiErr
}

// ---------------------------------------------------------------- gRPC

var (
	filesOnce sync.Once
	files     *protoregistry.Files
)

// message is a new dynamic message of the module's own descriptor set.
func message(t *testing.T, name string) *dynamicpb.Message {
	t.Helper()
	filesOnce.Do(func() {
		set := &descriptorpb.FileDescriptorSet{}
		if err := proto.Unmarshal(identity.FileDescriptorSet(), set); err != nil {
			panic(err)
		}
		var err error
		if files, err = protodesc.NewFiles(set); err != nil {
			panic(err)
		}
	})
	found, err := files.FindDescriptorByName(protoreflect.FullName(name))
	if err != nil {
		t.Fatal(err)
	}
	return dynamicpb.NewMessage(found.(protoreflect.MessageDescriptor))
}

type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return *(v.(*[]byte)), nil }
func (rawCodec) Unmarshal(data []byte, v any) error {
	*(v.(*[]byte)) = append([]byte(nil), data...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

// grpcCall is one call a fake gRPC service received.
type grpcCall struct {
	Method   string
	Request  []byte
	Metadata metadata.MD
}

// grpcReply is what a fake gRPC service answers: a message, or a status error with trailers.
type grpcReply struct {
	message proto.Message
	// raw, when set, is sent instead of message: bytes that may not be a message at all.
	raw     []byte
	err     error
	trailer metadata.MD
}

type grpcService struct {
	endpoint string
	mu       sync.Mutex
	calls    []grpcCall
}

func (s *grpcService) log() []grpcCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]grpcCall(nil), s.calls...)
}

// newGRPCService is a gRPC server that answers every method with answer(call number, call).
func newGRPCService(t *testing.T, answer func(n int, call grpcCall) grpcReply) *grpcService {
	t.Helper()
	s := &grpcService{}
	server := grpc.NewServer(grpc.ForceServerCodec(rawCodec{}), grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
		method, _ := grpc.MethodFromServerStream(stream)
		var request []byte
		if err := stream.RecvMsg(&request); err != nil {
			return err
		}
		md, _ := metadata.FromIncomingContext(stream.Context())
		call := grpcCall{Method: method, Request: request, Metadata: md}
		s.mu.Lock()
		s.calls = append(s.calls, call)
		n := len(s.calls)
		s.mu.Unlock()
		out := answer(n, call)
		if out.trailer != nil {
			stream.SetTrailer(out.trailer)
		}
		if out.err != nil {
			return out.err
		}
		data := out.raw
		if data == nil {
			var err error
			if data, err = proto.Marshal(out.message); err != nil {
				return status.Error(13, err.Error())
			}
		}
		return stream.SendMsg(&data)
	}))
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go server.Serve(listener)
	t.Cleanup(server.Stop)
	s.endpoint = listener.Addr().String()
	return s
}

// grpcAdmin is an admin client over gRPC to endpoint (the service URL is never called).
func grpcAdmin(t *testing.T, endpoint string, opts ...identity.AdminOption) *identity.AdminClient {
	t.Helper()
	return admin(t, "http://127.0.0.1:1", append([]identity.AdminOption{identity.WithAdminProtocol(identity.ProtocolGRPC), identity.WithAdminGRPCEndpoint(endpoint)}, opts...)...)
}

func jsonOf(t *testing.T, value any) string {
	t.Helper()
	data, err := json.Marshal(value)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func contains(text, part string) bool { return strings.Contains(text, part) }

func protoString(text string) protoreflect.Value { return protoreflect.ValueOfString(text) }
