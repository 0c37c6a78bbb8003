// Command bench times AdminMeta through the generated client over each protocol against the same
// request made by hand in the same process: a raw net/http POST (GraphQL, REST) decoding into the
// same struct, and a raw grpc-go unary call with the same dynamic messages. Rounds interleave the
// raw call and the client (alternating which goes first); it prints one JSON object per protocol
// with the latency and CPU time per call of each round, in pairs. Driven by bench/go.bench.ts:
//
//	bench <service URL> <gRPC endpoint> <admin secret> <calls per round> <rounds>
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"time"

	identity "github.com/identity-interface/identity-go/v2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

const header = "x-service-admin-secret"

// sample is microseconds per call in one round: wall time, and CPU time of this process.
type sample struct {
	Wall float64 `json:"wall"`
	CPU  float64 `json:"cpu"`
}

func cpuTime() time.Duration {
	var usage syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &usage)
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
}

// round makes `calls` calls; answers microseconds per call, wall and CPU.
func round(calls int, call func() error) sample {
	start, cpu := time.Now(), cpuTime()
	for range calls {
		if err := call(); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
	}
	return sample{float64(time.Since(start).Microseconds()) / float64(calls), float64((cpuTime() - cpu).Microseconds()) / float64(calls)}
}

// graphqlDocument is the document the client sends for admin_meta: every field of the answer.
func graphqlDocument() string {
	t := reflect.TypeOf(identity.AdminMeta{})
	var fields []string
	for i := range t.NumField() {
		// The answer's fields, not what it keeps besides them (ExtraFields, the raw JSON).
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			fields = append(fields, name)
		}
	}
	return "query admin_meta { admin_meta { " + strings.Join(fields, " ") + " } }"
}

func rawHTTP(client *http.Client, url, secret string, body []byte, graphql bool) func() error {
	return func() error {
		request, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, url, bytes.NewReader(body))
		request.Header.Set(header, secret)
		request.Header.Set("Content-Type", "application/json")
		response, err := client.Do(request)
		if err != nil {
			return err
		}
		data, err := io.ReadAll(response.Body)
		response.Body.Close()
		if err != nil || response.StatusCode != 200 {
			return fmt.Errorf("HTTP %d %v", response.StatusCode, err)
		}
		var meta identity.AdminMeta
		if graphql {
			var answer struct {
				Data struct {
					AdminMeta *identity.AdminMeta `json:"admin_meta"`
				} `json:"data"`
			}
			err = json.Unmarshal(data, &answer)
		} else {
			err = json.Unmarshal(data, &meta)
		}
		return err
	}
}

func rawGRPC(endpoint, secret string) func() error {
	set := &descriptorpb.FileDescriptorSet{}
	if err := proto.Unmarshal(identity.FileDescriptorSet(), set); err != nil {
		panic(err)
	}
	files, err := protodesc.NewFiles(set)
	if err != nil {
		panic(err)
	}
	find := func(name string) protoreflect.MessageDescriptor {
		d, err := files.FindDescriptorByName(protoreflect.FullName(name))
		if err != nil {
			panic(err)
		}
		return d.(protoreflect.MessageDescriptor)
	}
	requestType, responseType := find("identity.v1.AdminMetaRequest"), find("identity.v1.AdminMeta")
	conn, err := grpc.NewClient(endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		panic(err)
	}
	md := metadata.Pairs(header, secret)
	return func() error {
		response := dynamicpb.NewMessage(responseType)
		return conn.Invoke(metadata.NewOutgoingContext(context.Background(), md), "/identity.v1.AdminService/AdminMeta", dynamicpb.NewMessage(requestType), response)
	}
}

func main() {
	if len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: bench <service URL> <gRPC endpoint> <admin secret> <calls> <rounds>")
		os.Exit(2)
	}
	url, endpoint, secret := os.Args[1], os.Args[2], os.Args[3]
	calls, _ := strconv.Atoi(os.Args[4])
	rounds, _ := strconv.Atoi(os.Args[5])
	ctx := context.Background()
	httpClient := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	graphqlBody, _ := json.Marshal(map[string]string{"query": graphqlDocument()})
	raw := map[identity.Protocol]func() error{
		identity.ProtocolGraphQL: rawHTTP(httpClient, url+"/graphql", secret, graphqlBody, true),
		identity.ProtocolREST:    rawHTTP(httpClient, url+"/v1/admin/admin_meta", secret, []byte("{}"), false),
		identity.ProtocolGRPC:    rawGRPC(endpoint, secret),
	}
	for _, protocol := range []identity.Protocol{identity.ProtocolREST, identity.ProtocolGraphQL, identity.ProtocolGRPC} {
		admin, err := identity.NewAdminClient(url, secret, identity.WithAdminProtocol(protocol), identity.WithAdminGRPCEndpoint(endpoint))
		if err != nil {
			panic(err)
		}
		sdk := func() error {
			_, err := admin.AdminMeta(ctx, &identity.AdminMetaInput{})
			return err
		}
		round(calls, raw[protocol]) // warm-up: connections, descriptor tables
		round(calls, sdk)
		var rawSamples, sdkSamples []sample
		for i := range rounds {
			if i%2 == 0 {
				rawSamples = append(rawSamples, round(calls, raw[protocol]))
				sdkSamples = append(sdkSamples, round(calls, sdk))
			} else {
				sdkSamples = append(sdkSamples, round(calls, sdk))
				rawSamples = append(rawSamples, round(calls, raw[protocol]))
			}
		}
		admin.Close()
		line, _ := json.Marshal(map[string]any{"protocol": protocol, "raw": rawSamples, "sdk": sdkSamples})
		fmt.Println(string(line))
	}
}
