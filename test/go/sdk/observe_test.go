package sdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	identity "github.com/identity-interface/identity-go/v2"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// logBuffer is an io.Writer safe for the handler's concurrent writes, read as JSON records.
type logBuffer struct {
	mu   sync.Mutex
	data bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.data.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.data.String()
}

// records are the JSON records logged so far.
func (b *logBuffer) records(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if line == "" {
			continue
		}
		var record map[string]any
		if err := json.Unmarshal([]byte(line), &record); err != nil {
			t.Fatalf("not a JSON record: %s", line)
		}
		out = append(out, record)
	}
	return out
}

// jsonLogger logs every level as JSON into a new buffer.
func jsonLogger() (*slog.Logger, *logBuffer) {
	buffer := &logBuffer{}
	return slog.New(slog.NewJSONHandler(buffer, &slog.HandlerOptions{Level: slog.LevelDebug})), buffer
}

// attempts are the records of attempts (those with an attempt attribute).
func attempts(records []map[string]any) []map[string]any {
	var out []map[string]any
	for _, record := range records {
		if _, ok := record["attempt"]; ok {
			out = append(out, record)
		}
	}
	return out
}

func TestLogsHaveARecordPerAttemptAndNoSecret(t *testing.T) {
	logger, buffer := jsonLogger()
	service := newHTTPService(t, func(n int, r recorded) reply {
		if r.Path == "/v1/login" {
			return reply{headers: map[string]string{"Set-Cookie": "session=s3ss10n"}, body: `{"message":"hi","access_token":"new-token-1"}`}
		}
		if n == 1 {
			return reply{status: 503, body: `{"code":"UNAVAILABLE","message":"busy"}`}
		}
		return reply{body: `{"id":"u","email_verified":true,"signup_methods":"basic","phone_number_verified":false,"roles":[],"created_at":1,"updated_at":2}`}
	})
	client := admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolREST), identity.WithAdminLogger(logger), identity.WithAdminRetry(quick))
	if _, err := client.User(ctx, &identity.UserInput{ID: identity.String("u")}); err != nil {
		t.Fatal(err)
	}
	user, err := identity.NewClient("app", service.url, identity.WithProtocol(identity.ProtocolREST), identity.WithLogger(logger), identity.WithAccessToken("tok-123"))
	if err != nil {
		t.Fatal(err)
	}
	defer user.Close()
	if _, err := user.Login(ctx, &identity.LoginInput{Email: identity.String("a@b.c"), Password: "hunter2"}, identity.WithHeader("Cookie", "session=abc")); err != nil {
		t.Fatal(err)
	}

	records := attempts(buffer.records(t))
	if len(records) != 3 {
		t.Fatalf("want 3 records of attempts, got %d:\n%s", len(records), buffer)
	}
	for i, want := range []struct {
		level     string
		operation string
		attempt   float64
		status    float64
		retry     bool
	}{{"WARN", "user", 1, 503, true}, {"DEBUG", "user", 2, 200, false}, {"DEBUG", "login", 1, 200, false}} {
		got := records[i]
		if got["level"] != want.level || got["operation"] != want.operation || got["protocol"] != "rest" || got["attempt"] != want.attempt || got["status"] != want.status || got["will_retry"] != want.retry {
			t.Errorf("record %d: %v", i, got)
		}
		if _, ok := got["duration"].(float64); !ok {
			t.Errorf("record %d without a duration: %v", i, got)
		}
	}
	if records[0]["code"] != "UNAVAILABLE" {
		t.Errorf("the failure's code: %v", records[0])
	}
	text := buffer.String()
	for _, secret := range []string{secret, "tok-123", "hunter2", "session=abc", "s3ss10n"} {
		if strings.Contains(text, secret) {
			t.Errorf("the log shows %q:\n%s", secret, text)
		}
	}
	if !strings.Contains(text, `"password":"[redacted]"`) || !strings.Contains(text, `"authorization":"[redacted]"`) || !strings.Contains(text, `"x-service-admin-secret":"[redacted]"`) {
		t.Errorf("redacted values missing:\n%s", text)
	}
	if !strings.Contains(text, `"email":"a@b.c"`) {
		t.Errorf("a field that is not secret is logged as it is:\n%s", text)
	}
}

func TestLogsOverGRPCNameTheStatus(t *testing.T) {
	logger, buffer := jsonLogger()
	service := newGRPCService(t, func(n int, _ grpcCall) grpcReply {
		if n == 1 {
			return grpcReply{err: status.Error(codes.Unavailable, "busy")}
		}
		meta := message(t, "identity.v1.AdminMetaResponse")
		meta.Set(field(meta, "version"), protoString("2.4.0"))
		return grpcReply{message: meta}
	})
	if _, err := grpcAdmin(t, service.endpoint, identity.WithAdminLogger(logger), identity.WithAdminRetry(quick)).AdminMeta(ctx, nil); err != nil {
		t.Fatal(err)
	}
	records := attempts(buffer.records(t))
	if len(records) != 2 || records[0]["status"] != "UNAVAILABLE" || records[0]["will_retry"] != true || records[1]["status"] != "OK" || records[1]["protocol"] != "grpc" {
		t.Fatalf("records %v", records)
	}
	if strings.Contains(buffer.String(), secret) {
		t.Fatalf("the log shows the admin secret:\n%s", buffer)
	}
}

// withStderr runs f with the process's standard error going to a pipe, and answers what was
// written there.
func withStderr(t *testing.T, f func()) string {
	t.Helper()
	reader, writer, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = writer
	read := make(chan string)
	go func() {
		data, _ := io.ReadAll(reader)
		read <- string(data)
	}()
	func() {
		defer func() { os.Stderr = saved }()
		f()
	}()
	writer.Close()
	return <-read
}

func TestTheEnvironmentTurnsLoggingOn(t *testing.T) {
	service := newHTTPService(t, func(_ int, r recorded) reply {
		if r.Path == "/v1/admin/user" {
			return reply{status: 404, body: `{"code":"NOT_FOUND","message":"no such user"}`}
		}
		return reply{body: metaJSON}
	})
	calls := func() {
		client := admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolREST))
		if _, err := client.AdminMeta(ctx, nil); err != nil {
			t.Error(err)
		}
		_, _ = client.User(ctx, &identity.UserInput{ID: identity.String("missing")})
	}
	for _, level := range []string{"debug", "INFO", "off", ""} {
		t.Setenv("IDENTITY_LOG", level)
		logged := withStderr(t, calls)
		success, failure := strings.Contains(logged, "admin_meta over rest, attempt 1: HTTP 200"), strings.Contains(logged, "user over rest, attempt 1: NOT_FOUND (HTTP 404)")
		switch level {
		case "debug":
			if !success || !failure || !strings.Contains(logged, "level=DEBUG") {
				t.Errorf("IDENTITY_LOG=debug logs every attempt:\n%s", logged)
			}
		case "INFO":
			if success || !failure {
				t.Errorf("IDENTITY_LOG=info logs failures only:\n%s", logged)
			}
		default:
			if logged != "" {
				t.Errorf("IDENTITY_LOG=%q logs nothing:\n%s", level, logged)
			}
		}
		if strings.Contains(logged, secret) {
			t.Errorf("the log shows the admin secret:\n%s", logged)
		}
	}
	// A logger given wins over the environment.
	t.Setenv("IDENTITY_LOG", "debug")
	logger, buffer := jsonLogger()
	logged := withStderr(t, func() {
		if _, err := admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolREST), identity.WithAdminLogger(logger)).AdminMeta(ctx, nil); err != nil {
			t.Error(err)
		}
	})
	if logged != "" || len(attempts(buffer.records(t))) != 1 {
		t.Fatalf("stderr %q, logger %s", logged, buffer)
	}
}

func TestRedactedHeaderHidesCredentials(t *testing.T) {
	h := http.Header{"X-Service-Admin-Secret": {secret}, "Authorization": {"Bearer t"}, "Cookie": {"a=b"}, "Set-Cookie": {"c=d"}, "X-Team": {"a"}}
	got := identity.RedactedHeader(h)
	if got.Get("X-Service-Admin-Secret") != "[redacted]" || got.Get("Authorization") != "[redacted]" || got.Get("Cookie") != "[redacted]" || got.Get("Set-Cookie") != "[redacted]" || got.Get("X-Team") != "a" {
		t.Fatalf("redacted %v", got)
	}
	if h.Get("Authorization") != "Bearer t" {
		t.Fatal("the header given was changed")
	}
}

func TestMiddlewareWrapsEveryHTTPAttempt(t *testing.T) {
	for _, protocol := range []identity.Protocol{identity.ProtocolREST, identity.ProtocolGraphQL} {
		service := newHTTPService(t, func(n int, _ recorded) reply {
			if n == 1 {
				return reply{status: 503, body: `{"code":"UNAVAILABLE","message":"busy"}`}
			}
			if protocol == identity.ProtocolGraphQL {
				return reply{body: graphqlData("admin_meta", metaJSON)}
			}
			return reply{body: metaJSON}
		})
		var mu sync.Mutex
		var order []string
		var statuses []int
		outer := func(r *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
			mu.Lock()
			order = append(order, "outer")
			mu.Unlock()
			r.Header.Set("X-Trace", "t-1")
			response, err := next(r)
			if err == nil {
				mu.Lock()
				statuses = append(statuses, response.StatusCode)
				mu.Unlock()
			}
			return response, err
		}
		inner := func(r *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
			mu.Lock()
			order = append(order, "inner:"+r.Header.Get("X-Trace"))
			mu.Unlock()
			return next(r)
		}
		client := admin(t, service.url, identity.WithAdminProtocol(protocol), identity.WithAdminRetry(quick), identity.WithAdminMiddleware(outer), identity.WithAdminMiddleware(inner))
		if _, err := client.AdminMeta(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if strings.Join(order, " ") != "outer inner:t-1 outer inner:t-1" || len(statuses) != 2 || statuses[0] != 503 || statuses[1] != 200 {
			t.Fatalf("%s: middleware saw %v, statuses %v", protocol, order, statuses)
		}
		for _, r := range service.log() {
			if r.Header.Get("X-Trace") != "t-1" {
				t.Fatalf("%s: the middleware's header was not sent: %v", protocol, r.Header)
			}
		}
	}
	// Middleware may answer without sending anything.
	canned := func(r *http.Request, _ func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(metaJSON)), Request: r}, nil
	}
	meta, err := admin(t, "http://127.0.0.1:1", identity.WithAdminProtocol(identity.ProtocolREST), identity.WithAdminMiddleware(canned)).AdminMeta(ctx, nil)
	if err != nil || meta.Version != "2.4.0" {
		t.Fatalf("a canned answer: %v %v", meta, err)
	}
}

func TestGRPCInterceptorsSeeEveryAttempt(t *testing.T) {
	service := newGRPCService(t, func(n int, _ grpcCall) grpcReply {
		if n == 1 {
			return grpcReply{err: status.Error(codes.Unavailable, "busy")}
		}
		return grpcReply{message: message(t, "identity.v1.AdminMetaResponse")}
	})
	var mu sync.Mutex
	var seen []string
	interceptor := func(name string) grpc.UnaryClientInterceptor {
		return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			err := invoker(metadata.AppendToOutgoingContext(ctx, "x-"+name, "1"), method, req, reply, cc, opts...)
			mu.Lock()
			seen = append(seen, name+" "+method+" "+status.Code(err).String())
			mu.Unlock()
			return err
		}
	}
	client := grpcAdmin(t, service.endpoint, identity.WithAdminRetry(quick), identity.WithAdminGRPCUnaryInterceptor(interceptor("outer")), identity.WithAdminGRPCUnaryInterceptor(interceptor("inner")))
	if _, err := client.AdminMeta(ctx, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"inner /identity.v1.AdminService/AdminMeta Unavailable", "outer /identity.v1.AdminService/AdminMeta Unavailable",
		"inner /identity.v1.AdminService/AdminMeta OK", "outer /identity.v1.AdminService/AdminMeta OK",
	}
	if strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Fatalf("interceptors saw %v", seen)
	}
	for _, call := range service.log() {
		if len(call.Metadata.Get("x-outer")) != 1 || len(call.Metadata.Get("x-inner")) != 1 {
			t.Fatalf("metadata the interceptors added: %v", call.Metadata)
		}
	}
}

func TestResponseIntoTellsWhatCameWithACall(t *testing.T) {
	for _, protocol := range []identity.Protocol{identity.ProtocolREST, identity.ProtocolGraphQL} {
		service := newHTTPService(t, func(n int, r recorded) reply {
			headers := map[string]string{"X-Request-Id": "req-" + string(rune('0'+n))}
			if n == 1 {
				return reply{status: 503, headers: headers, body: `{"code":"UNAVAILABLE","message":"busy"}`}
			}
			if n == 3 {
				if protocol == identity.ProtocolGraphQL {
					return reply{headers: headers, body: `{"errors":[{"message":"no such user","extensions":{"code":"NOT_FOUND"}}],"data":null}`}
				}
				return reply{status: 404, headers: headers, body: `{"code":"NOT_FOUND","message":"no such user"}`}
			}
			if protocol == identity.ProtocolGraphQL {
				return reply{headers: headers, body: graphqlData("admin_meta", metaJSON)}
			}
			return reply{headers: headers, body: metaJSON}
		})
		client := admin(t, service.url, identity.WithAdminProtocol(protocol), identity.WithAdminRetry(quick))
		var response identity.RawResponse
		if _, err := client.AdminMeta(ctx, nil, identity.WithResponseInto(&response)); err != nil {
			t.Fatal(err)
		}
		if response.StatusCode != 200 || response.Header.Get("X-Request-Id") != "req-2" || response.Protocol != protocol || response.Attempts != 2 {
			t.Fatalf("%s: response %+v", protocol, response)
		}
		_, err := client.User(ctx, &identity.UserInput{ID: identity.String("missing")}, identity.WithResponseInto(&response))
		wantError(t, err, identity.CodeNotFound, "no such user")
		wantStatus := 404
		if protocol == identity.ProtocolGraphQL {
			wantStatus = 200
		}
		if response.StatusCode != wantStatus || response.Header.Get("X-Request-Id") != "req-3" || response.Attempts != 1 {
			t.Fatalf("%s: response of a failure %+v", protocol, response)
		}
	}
	// A call refused before anything is sent: no attempt.
	var refused identity.RawResponse
	_, err := admin(t, "http://127.0.0.1:1", identity.WithAdminProtocol(identity.ProtocolREST)).AdminSignup(ctx, &identity.AdminSignupInput{AdminSecret: "x"}, identity.WithResponseInto(&refused))
	if apiError(t, err).Refused != true || refused.Attempts != 0 || refused.StatusCode != 0 || refused.Protocol != identity.ProtocolREST || refused.Header == nil {
		t.Fatalf("response of a refused call %+v", refused)
	}
}

func TestResponseIntoOverGRPCHasTheMetadata(t *testing.T) {
	service := newGRPCService(t, func(n int, _ grpcCall) grpcReply {
		if n == 1 {
			return grpcReply{err: status.Error(codes.NotFound, "no such user"), trailer: metadata.Pairs("x-error-code", "NOT_FOUND", "x-request-id", "r1")}
		}
		return grpcReply{message: message(t, "identity.v1.AdminMetaResponse"), trailer: metadata.Pairs("x-request-id", "r2")}
	})
	client := grpcAdmin(t, service.endpoint)
	var response identity.RawResponse
	_, err := client.User(ctx, &identity.UserInput{ID: identity.String("u")}, identity.WithResponseInto(&response))
	wantError(t, err, identity.CodeNotFound, "no such user")
	if response.StatusCode != 0 || response.Protocol != identity.ProtocolGRPC || response.Attempts != 1 || response.Header.Get("X-Request-Id") != "r1" || response.Header.Get("X-Error-Code") != "NOT_FOUND" {
		t.Fatalf("response of a failure %+v", response)
	}
	if _, err := client.AdminMeta(ctx, nil, identity.WithResponseInto(&response)); err != nil {
		t.Fatal(err)
	}
	if response.Header.Get("X-Request-Id") != "r2" || response.Header.Get("Content-Type") != "application/grpc" || response.Attempts != 1 {
		t.Fatalf("response %+v", response)
	}
}

func TestEveryRequestNamesTheSDK(t *testing.T) {
	userAgent := "github.com/identity-interface/identity-go/v2/" + identity.ServiceVersion
	apiClient := "go/" + identity.ServiceVersion + " go/" + strings.TrimPrefix(runtime.Version(), "go")
	for _, protocol := range []identity.Protocol{identity.ProtocolREST, identity.ProtocolGraphQL} {
		service := newHTTPService(t, func(int, recorded) reply {
			if protocol == identity.ProtocolGraphQL {
				return reply{body: graphqlData("admin_meta", metaJSON)}
			}
			return reply{body: metaJSON}
		})
		if _, err := admin(t, service.url, identity.WithAdminProtocol(protocol)).AdminMeta(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if r := service.log()[0]; r.Header.Get("User-Agent") != userAgent || r.Header.Get("X-Api-Client") != apiClient {
			t.Fatalf("%s: User-Agent %q, x-api-client %q", protocol, r.Header.Get("User-Agent"), r.Header.Get("X-Api-Client"))
		}
	}
	service := newGRPCService(t, func(int, grpcCall) grpcReply {
		return grpcReply{message: message(t, "identity.v1.AdminMetaResponse")}
	})
	if _, err := grpcAdmin(t, service.endpoint).AdminMeta(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// grpc-go adds its own name after the client's.
	md := service.log()[0].Metadata
	if agent := md.Get("user-agent"); len(agent) != 1 || !strings.HasPrefix(agent[0], userAgent+" grpc-go/") {
		t.Fatalf("gRPC user-agent %v", agent)
	}
	if got := md.Get("x-api-client"); len(got) != 1 || got[0] != apiClient {
		t.Fatalf("gRPC x-api-client %v", got)
	}
}

// The W3C trace context of the caller's span goes with every protocol, as the application's
// OpenTelemetry propagator writes it; the default propagator writes nothing.
func TestTheTraceContextOfTheCallersSpanIsSent(t *testing.T) {
	const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	traceID, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	spanID, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	traced := trace.ContextWithSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: spanID, TraceFlags: trace.FlagsSampled, TraceState: mustTraceState(t, "vendor=a1")}))
	rest := newHTTPService(t, ok(metaJSON))
	client := admin(t, rest.url, identity.WithAdminProtocol(identity.ProtocolREST))
	if _, err := client.AdminMeta(traced, nil); err != nil {
		t.Fatal(err)
	}
	if got := rest.log()[0].Header.Get("Traceparent"); got != "" {
		t.Fatalf("sent %q with the default (no-op) propagator", got)
	}
	previous := otel.GetTextMapPropagator()
	otel.SetTextMapPropagator(propagation.TraceContext{})
	t.Cleanup(func() { otel.SetTextMapPropagator(previous) })
	// One call's trace is not kept by the client: the next call without a span sends none.
	for _, want := range []string{traceparent, ""} {
		callCtx := ctx
		if want != "" {
			callCtx = traced
		}
		if _, err := client.AdminMeta(callCtx, nil); err != nil {
			t.Fatal(err)
		}
		r := rest.log()[len(rest.log())-1]
		if r.Header.Get("Traceparent") != want || (want != "" && r.Header.Get("Tracestate") != "vendor=a1") {
			t.Fatalf("REST: traceparent %q tracestate %q, want %q", r.Header.Get("Traceparent"), r.Header.Get("Tracestate"), want)
		}
	}
	graphql := newHTTPService(t, func(int, recorded) reply { return reply{body: graphqlData("admin_meta", metaJSON)} })
	if _, err := admin(t, graphql.url, identity.WithAdminProtocol(identity.ProtocolGraphQL)).AdminMeta(traced, nil); err != nil {
		t.Fatal(err)
	}
	if got := graphql.log()[0].Header.Get("Traceparent"); got != traceparent {
		t.Fatalf("GraphQL: traceparent %q", got)
	}
	service := newGRPCService(t, func(int, grpcCall) grpcReply {
		return grpcReply{message: message(t, "identity.v1.AdminMetaResponse")}
	})
	if _, err := grpcAdmin(t, service.endpoint).AdminMeta(traced, nil); err != nil {
		t.Fatal(err)
	}
	if got := service.log()[0].Metadata.Get("traceparent"); len(got) != 1 || got[0] != traceparent {
		t.Fatalf("gRPC: traceparent %v", got)
	}
}

func mustTraceState(t *testing.T, text string) trace.TraceState {
	state, err := trace.ParseTraceState(text)
	if err != nil {
		t.Fatal(err)
	}
	return state
}
