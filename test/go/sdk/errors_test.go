package sdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	identity "github.com/identity-interface/identity-go/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// statusFacts is how the TypeScript runtime maps statuses to codes (test/go/go.test.ts writes it
// from runtime/errors.ts and the SDK facts): the Go client must map them alike.
type statusFacts struct {
	HTTP       map[string]string `json:"http"`
	GRPC       map[string]string `json:"grpc"`
	GRPCBare   map[string]string `json:"grpcBare"`
	NoAnswer   []int             `json:"grpcNoAnswerStatuses"`
	Unreadable []int             `json:"grpcUnreadableStatuses"`
}

func loadStatusFacts(t *testing.T) statusFacts {
	t.Helper()
	path := os.Getenv("SDK_STATUS_FACTS")
	if path == "" {
		t.Skip("SDK_STATUS_FACTS is not set (test/go/go.test.ts sets it)")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var facts statusFacts
	if err := json.Unmarshal(data, &facts); err != nil {
		t.Fatal(err)
	}
	return facts
}

func TestHTTPStatusesMapToTheCodesOfTheTypeScriptRuntime(t *testing.T) {
	facts := loadStatusFacts(t)
	service := newHTTPService(t, func(_ int, r recorded) reply {
		status, _ := strconv.Atoi(r.Header.Get("x-status"))
		return reply{status: status}
	})
	client, _ := identity.NewClient("c", service.url, identity.WithProtocol(identity.ProtocolREST), identity.WithRetry(identity.NoRetry))
	defer client.Close()
	for status := 400; status < 600; status++ {
		_, err := client.Meta(ctx, nil, identity.WithHeader("x-status", strconv.Itoa(status)))
		apiErr := apiError(t, err)
		if want := facts.HTTP[strconv.Itoa(status)]; string(apiErr.Code) != want || apiErr.HTTPStatus != status || apiErr.Message != "HTTP "+strconv.Itoa(status) {
			t.Errorf("HTTP %d: %s %q (status %d), want %s", status, apiErr.Code, apiErr.Message, apiErr.HTTPStatus, want)
		}
	}
}

func TestRESTErrors(t *testing.T) {
	service := newHTTPService(t, func(n int, _ recorded) reply {
		switch n {
		case 1:
			return reply{status: 404, body: `{"code":"NOT_FOUND","message":"user u not found"}`}
		case 2:
			return reply{status: 418, body: `{"message":"teapot"}`}
		case 3:
			return reply{status: 500}
		case 4:
			return reply{status: 400, body: `{"code":"NOT_A_CODE","message":"odd"}`}
		}
		return reply{status: 400, body: `not json`}
	})
	client := admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolREST), identity.WithAdminRetry(identity.NoRetry))
	_, err := client.User(ctx, &identity.UserInput{ID: identity.String("u")})
	apiErr := wantError(t, err, identity.CodeNotFound, "user u not found")
	if apiErr.HTTPStatus != 404 || apiErr.Refused || apiErr.Protocol != identity.ProtocolREST || apiErr.Operation != "user" {
		t.Fatalf("error fields: %+v", apiErr)
	}
	if !errors.Is(err, identity.ErrNotFound) || errors.Is(err, identity.ErrInternal) {
		t.Fatal("errors.Is must match the sentinel of the code, and only it")
	}
	var asErr *identity.APIError
	if !errors.As(err, &asErr) || asErr != apiErr {
		t.Fatal("errors.As must give the *APIError")
	}
	if got, want := err.Error(), "identity: user over rest: NOT_FOUND: user u not found"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	_, err = client.User(ctx, nil)
	wantError(t, err, identity.CodeInvalidArgument, "teapot")
	_, err = client.User(ctx, nil)
	wantError(t, err, identity.CodeInternal, "HTTP 500")
	_, err = client.User(ctx, nil)
	wantError(t, err, identity.CodeInvalidArgument, "odd")
	_, err = client.User(ctx, nil)
	// A body that is not the error model (a proxy's page): the code of the status.
	if apiErr := wantError(t, err, identity.CodeInvalidArgument, "HTTP 400"); apiErr.HTTPStatus != 400 {
		t.Fatalf("status %d", apiErr.HTTPStatus)
	}
}

func TestTokenRouteErrorsCarryTheOAuthError(t *testing.T) {
	failing := newHTTPService(t, func(int, recorded) reply {
		return reply{status: 400, body: `{"error":"invalid_grant","error_description":"the code has expired"}`}
	})
	client, _ := identity.NewClient("app", failing.url, identity.WithProtocol(identity.ProtocolGRPC), identity.WithGRPCEndpoint("127.0.0.1:1"))
	defer client.Close()
	_, err := client.OauthToken(ctx, &identity.OauthTokenInput{GrantType: "authorization_code", Code: identity.String("c")})
	apiErr := wantError(t, err, identity.CodeFailedPrecondition, "the code has expired")
	if apiErr.OAuthError != "invalid_grant" || apiErr.HTTPStatus != 400 || apiErr.Protocol != identity.ProtocolREST {
		t.Fatalf("token error: %+v", apiErr)
	}
}

// A status that says more than "bad request" (the service keeps 503, 429, 500 with an
// invalid_request body) gives the code of the status, not INVALID_ARGUMENT.
func TestTokenRouteStatusSaysMoreThanItsOAuthError(t *testing.T) {
	for status, code := range map[int]identity.ErrorCode{503: identity.CodeUnavailable, 429: identity.CodeTooManyRequests, 500: identity.CodeInternal} {
		failing := newHTTPService(t, func(int, recorded) reply {
			return reply{status: status, body: `{"error":"invalid_request","error_description":"the database cannot be reached"}`}
		})
		client, _ := identity.NewClient("app", failing.url, identity.WithProtocol(identity.ProtocolGRPC), identity.WithGRPCEndpoint("127.0.0.1:1"), identity.WithRetry(identity.NoRetry))
		_, err := client.OauthToken(ctx, &identity.OauthTokenInput{GrantType: "refresh_token", RefreshToken: identity.String("r")})
		apiErr := wantError(t, err, code, "the database cannot be reached")
		if apiErr.OAuthError != "invalid_request" || apiErr.HTTPStatus != status {
			t.Errorf("status %d: %+v", status, apiErr)
		}
		client.Close()
	}
}

func TestGraphQLErrors(t *testing.T) {
	service := newHTTPService(t, func(n int, _ recorded) reply {
		switch n {
		case 1:
			return reply{body: `{"errors":[{"message":"no such webhook","extensions":{"code":"NOT_FOUND"}}],"data":null}`}
		case 2:
			return reply{body: `{"errors":[{"message":"boom"}]}`}
		case 3:
			return reply{status: 404, body: `<html>not found</html>`}
		}
		return reply{status: 502, body: `<html>bad gateway</html>`}
	})
	client := admin(t, service.url, identity.WithAdminRetry(identity.NoRetry))
	_, err := client.GetWebhook(ctx, &identity.GetWebhookInput{ID: "w"})
	if apiErr := wantError(t, err, identity.CodeNotFound, "no such webhook"); apiErr.HTTPStatus != 200 {
		t.Fatalf("status %d", apiErr.HTTPStatus)
	}
	_, err = client.GetWebhook(ctx, &identity.GetWebhookInput{ID: "w"})
	wantError(t, err, identity.CodeInternal, "boom")
	_, err = client.GetWebhook(ctx, &identity.GetWebhookInput{ID: "w"})
	wantError(t, err, identity.CodeNotFound, "HTTP 404")
	_, err = client.GetWebhook(ctx, &identity.GetWebhookInput{ID: "w"})
	if apiErr := wantError(t, err, identity.CodeUnavailable, "HTTP 502"); apiErr.HTTPStatus != 502 {
		t.Fatalf("status %d", apiErr.HTTPStatus)
	}
}

func TestNoAnswerIsUnavailable(t *testing.T) {
	listener, _ := net.Listen("tcp", "127.0.0.1:0")
	address := listener.Addr().String()
	listener.Close()
	for _, protocol := range []identity.Protocol{identity.ProtocolGraphQL, identity.ProtocolREST, identity.ProtocolGRPC} {
		client := admin(t, "http://"+address, identity.WithAdminProtocol(protocol), identity.WithAdminGRPCEndpoint(address), identity.WithAdminRetry(identity.NoRetry))
		_, err := client.AdminMeta(ctx, nil)
		apiErr := wantError(t, err, identity.CodeUnavailable, "")
		if !errors.Is(err, identity.ErrUnavailable) || apiErr.Refused {
			t.Fatalf("%s: %+v", protocol, apiErr)
		}
		if protocol != identity.ProtocolGRPC && !contains(apiErr.Message, "admin_meta: no answer from the service (") {
			t.Fatalf("%s: message %q", protocol, apiErr.Message)
		}
		var netErr *net.OpError
		if protocol != identity.ProtocolGRPC && !errors.As(err, &netErr) {
			t.Fatalf("%s: the network error must be reachable with errors.As: %v", protocol, err)
		}
	}
}

func TestRefusedDefaultGRPCEndpointNamesTheOption(t *testing.T) {
	// 127.0.0.2 is loopback where no test listens: the default endpoint 127.0.0.2:9091 refuses.
	hint := "127.0.0.2:9091 is the default gRPC endpoint (the host of the service URL, port 9091): if the service serves gRPC elsewhere, set WithAdminGRPCEndpoint to its host:port"
	chosen := admin(t, "http://127.0.0.2:1", identity.WithAdminProtocol(identity.ProtocolGRPC), identity.WithAdminRetry(identity.NoRetry))
	_, err := chosen.AdminMeta(ctx, nil)
	if apiErr := wantError(t, err, identity.CodeUnavailable, ""); !contains(apiErr.Message, "admin_meta: no answer from the service (") || !contains(apiErr.Message, hint) {
		t.Fatalf("message %q", apiErr.Message)
	}
	given := admin(t, "http://127.0.0.2:1", identity.WithAdminProtocol(identity.ProtocolGRPC), identity.WithAdminGRPCEndpoint("127.0.0.2:9091"), identity.WithAdminRetry(identity.NoRetry))
	_, err = given.AdminMeta(ctx, nil)
	if apiErr := wantError(t, err, identity.CodeUnavailable, ""); contains(apiErr.Message, "default gRPC endpoint") {
		t.Fatalf("a given endpoint is not the default: %q", apiErr.Message)
	}
}

func TestGRPCErrors(t *testing.T) {
	facts := loadStatusFacts(t)
	service := newGRPCService(t, func(_ int, call grpcCall) grpcReply {
		code, _ := strconv.Atoi(call.Metadata.Get("x-status")[0])
		var trailer metadata.MD
		if named := call.Metadata.Get("x-name"); len(named) > 0 {
			trailer = metadata.Pairs("x-error-code", named[0])
		}
		return grpcReply{err: status.Error(codes.Code(code), "status "+strconv.Itoa(code)), trailer: trailer}
	})
	client := grpcAdmin(t, service.endpoint, identity.WithAdminRetry(identity.NoRetry))
	for code := 1; code <= 16; code++ {
		want := facts.GRPC[strconv.Itoa(code)]
		if bare, ok := facts.GRPCBare[strconv.Itoa(code)]; ok {
			want = bare
		}
		message := "status " + strconv.Itoa(code)
		// Statuses the server does not name: no answer, or a stream without a readable answer.
		if slices.Contains(facts.NoAnswer, code) {
			want, message = "UNAVAILABLE", "admin_meta: no answer from the service ("+message+")"
		} else if slices.Contains(facts.Unreadable, code) {
			want, message = "INTERNAL", "admin_meta: the gRPC answer could not be read ("+message+")"
		}
		_, err := client.AdminMeta(ctx, nil, identity.WithHeader("x-status", strconv.Itoa(code)))
		apiErr := apiError(t, err)
		if string(apiErr.Code) != want || apiErr.Message != message {
			t.Errorf("gRPC status %d: %s %q, want %s", code, apiErr.Code, apiErr.Message, want)
		}
	}
	// The code the server names wins over the status (several codes may share one).
	_, err := client.AdminMeta(ctx, nil, identity.WithHeader("x-status", "8"), identity.WithHeader("x-name", "TOO_MANY_REQUESTS"))
	wantError(t, err, identity.CodeTooManyRequests, "status 8")
	_, err = client.AdminMeta(ctx, nil, identity.WithHeader("x-status", "5"), identity.WithHeader("x-name", "NOT_A_CODE"))
	wantError(t, err, identity.CodeNotFound, "status 5")
}

func TestDeadlinesAndCancellation(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	service := newHTTPService(t, func(int, recorded) reply {
		select {
		case <-release:
		case <-time.After(5 * time.Second):
		}
		return reply{body: graphqlData("admin_meta", metaJSON)}
	})
	client := admin(t, service.url, identity.WithAdminTimeout(50*time.Millisecond))
	started := time.Now()
	_, err := client.AdminMeta(ctx, nil)
	wantError(t, err, identity.CodeDeadlineExceeded, "admin_meta timed out")
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, identity.ErrDeadlineExceeded) {
		t.Fatalf("a timeout must match context.DeadlineExceeded and ErrDeadlineExceeded: %v", err)
	}
	if elapsed := time.Since(started); elapsed > 2*time.Second {
		t.Fatalf("the timeout took %v", elapsed)
	}
	_, err = client.AdminMeta(ctx, nil, identity.WithCallTimeout(20*time.Millisecond))
	wantError(t, err, identity.CodeDeadlineExceeded, "admin_meta timed out")
	cancelled, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(30 * time.Millisecond); cancel() }()
	_, err = admin(t, service.url).AdminMeta(cancelled, nil)
	wantError(t, err, identity.CodeCancelled, "admin_meta was cancelled")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled call must match context.Canceled: %v", err)
	}
	grpcService := newGRPCService(t, func(int, grpcCall) grpcReply {
		time.Sleep(300 * time.Millisecond)
		return grpcReply{message: message(t, "identity.v1.AdminMeta")}
	})
	_, err = grpcAdmin(t, grpcService.endpoint, identity.WithAdminTimeout(50*time.Millisecond)).AdminMeta(ctx, nil)
	wantError(t, err, identity.CodeDeadlineExceeded, "admin_meta timed out")
}
