package sdk_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	identity "github.com/identity-interface/identity-go/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// hangingServer accepts connections and never answers.
func hangingServer(t *testing.T) string {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			conn, err := listener.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		listener.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, conn := range conns {
			conn.Close()
		}
	})
	return "http://" + listener.Addr().String()
}

// CreateOrganization over REST needs server 2.4.0: a client without a server version asks first.
func TestTheVersionLookupEndsAtTheCallersDeadline(t *testing.T) {
	url := hangingServer(t)
	client := admin(t, url, identity.WithAdminProtocol(identity.ProtocolREST), identity.WithAdminRetry(identity.NoRetry))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	started := time.Now()
	_, err := client.CreateOrganization(ctx, &identity.CreateOrganizationInput{Name: "acme"})
	apiErr := wantError(t, err, identity.CodeDeadlineExceeded, "create_organization timed out")
	if apiErr.Operation != "create_organization" || time.Since(started) > 1500*time.Millisecond {
		t.Fatalf("%+v after %v", apiErr, time.Since(started))
	}
	cancelled, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err = client.CreateOrganization(cancelled, &identity.CreateOrganizationInput{Name: "acme"})
	wantError(t, err, identity.CodeCancelled, "create_organization was cancelled")
}

func TestEachWaiterForTheVersionLeavesAtItsOwnDeadline(t *testing.T) {
	url := hangingServer(t)
	client := admin(t, url, identity.WithAdminProtocol(identity.ProtocolREST), identity.WithAdminRetry(identity.NoRetry))
	deadlines := []time.Duration{1200 * time.Millisecond, 300 * time.Millisecond}
	elapsed := make([]time.Duration, len(deadlines))
	var wg sync.WaitGroup
	for i, deadline := range deadlines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			started := time.Now()
			_, err := client.CreateOrganization(ctx, &identity.CreateOrganizationInput{Name: "acme"}, identity.WithCallTimeout(deadline))
			elapsed[i] = time.Since(started)
			wantError(t, err, identity.CodeDeadlineExceeded, "create_organization timed out")
		}()
		time.Sleep(20 * time.Millisecond) // the long one asks first
	}
	wg.Wait()
	if elapsed[1] > 900*time.Millisecond || elapsed[0] < 1100*time.Millisecond || elapsed[0] > 2500*time.Millisecond {
		t.Fatalf("waits %v for deadlines %v", elapsed, deadlines)
	}
}

func TestTheDefaultDeadlineIsAMinute(t *testing.T) {
	if identity.DefaultTimeout != time.Minute {
		t.Fatalf("DefaultTimeout %v", identity.DefaultTimeout)
	}
}

func TestAProxysHTMLPageGetsTheCodeOfItsStatus(t *testing.T) {
	for _, protocol := range []identity.Protocol{identity.ProtocolREST, identity.ProtocolGraphQL} {
		for _, c := range []struct {
			status   int
			code     identity.ErrorCode
			attempts int
		}{{401, identity.CodeUnauthenticated, 1}, {404, identity.CodeNotFound, 1}, {429, identity.CodeTooManyRequests, 3}, {503, identity.CodeUnavailable, 3}} {
			service := newHTTPService(t, func(int, recorded) reply {
				return reply{status: c.status, body: "<html>proxy</html>", headers: map[string]string{"Retry-After": "0", "Content-Type": "text/html"}}
			})
			client := admin(t, service.url, identity.WithAdminProtocol(protocol), identity.WithAdminServerVersion("2.4.4"),
				identity.WithAdminRetry(identity.RetryPolicy{Attempts: 3, BaseDelay: time.Millisecond}))
			_, err := client.AdminMeta(ctx, &identity.AdminMetaInput{})
			apiErr := wantError(t, err, c.code, "HTTP "+strconv.Itoa(c.status))
			if apiErr.HTTPStatus != c.status || len(service.log()) != c.attempts {
				t.Errorf("%s %d: status %d after %d attempts", protocol, c.status, apiErr.HTTPStatus, len(service.log()))
			}
		}
	}
}

func TestA2xxThatIsNotTheAnswerIsNeverRetriedAndAWriteOutcomeUnknown(t *testing.T) {
	bodies := map[identity.Protocol][]string{
		identity.ProtocolREST:    {"<html></html>", "null", "[1]"},
		identity.ProtocolGraphQL: {"<html></html>", "null", `{"data": null}`, `{"data": {}}`, "{}"},
	}
	for protocol, list := range bodies {
		for _, body := range list {
			service := newHTTPService(t, ok(body))
			client := admin(t, service.url, identity.WithAdminProtocol(protocol), identity.WithAdminServerVersion("2.4.4"),
				identity.WithAdminRetry(identity.RetryPolicy{Attempts: 3, BaseDelay: time.Millisecond}))
			_, err := client.AdminMeta(ctx, &identity.AdminMetaInput{})
			wantError(t, err, identity.CodeInternal, "admin_meta: the service answered HTTP 200 with a body that is not its answer")
			if len(service.log()) != 1 {
				t.Errorf("%s %s: %d attempts", protocol, body, len(service.log()))
			}
			// A keyed write is retried on transient failures, but this is none: sent once.
			_, err = client.CreateOrganization(ctx, &identity.CreateOrganizationInput{Name: "acme"})
			wantError(t, err, identity.CodeOutcomeUnknown, "create_organization: the service answered HTTP 200 with a body that is not its answer; the write may have happened")
			if len(service.log()) != 2 {
				t.Errorf("%s %s: the write was sent %d times", protocol, body, len(service.log())-1)
			}
		}
	}
}

func TestGRPCRetryAfterIsReadOnEveryStatus(t *testing.T) {
	service := newGRPCService(t, func(int, grpcCall) grpcReply {
		return grpcReply{err: status.Error(codes.Unavailable, "draining"), trailer: metadata.Pairs("retry-after", "7")}
	})
	client := grpcAdmin(t, service.endpoint, identity.WithAdminRetry(identity.NoRetry))
	_, err := client.CreateOrganization(ctx, &identity.CreateOrganizationInput{Name: "acme"})
	if apiErr := wantError(t, err, identity.CodeUnavailable, "create_organization: no answer from the service (draining)"); apiErr.RetryAfter != 7*time.Second {
		t.Fatalf("retry after %v", apiErr.RetryAfter)
	}
}

func TestAnAnswerOverTheSizeCapIsRefused(t *testing.T) {
	big := `{"version":"` + strings.Repeat("x", 5000) + `"}`
	for _, protocol := range []identity.Protocol{identity.ProtocolREST, identity.ProtocolGraphQL} {
		service := newHTTPService(t, ok(big))
		client := admin(t, service.url, identity.WithAdminProtocol(protocol), identity.WithAdminServerVersion("2.4.4"), identity.WithAdminMaxResponseBytes(1000))
		_, err := client.AdminMeta(ctx, &identity.AdminMetaInput{})
		wantError(t, err, identity.CodePayloadTooLarge, "admin_meta: the answer is larger than 1000 bytes (WithMaxResponseBytes)")
	}
	service := newGRPCService(t, func(int, grpcCall) grpcReply {
		answer := message(t, "identity.v1.AdminMetaResponse")
		answer.Set(answer.Descriptor().Fields().ByName("version"), protoString(strings.Repeat("2.4.4", 20)))
		return grpcReply{message: answer}
	})
	client := grpcAdmin(t, service.endpoint, identity.WithAdminMaxResponseBytes(4), identity.WithAdminRetry(identity.NoRetry))
	_, err := client.AdminMeta(ctx, &identity.AdminMetaInput{})
	if apiErr := apiError(t, err); apiErr.Code != identity.CodePayloadTooLarge {
		t.Fatalf("gRPC: %+v", apiErr)
	}
}

func TestAClosedClientRefusesLaterCallsAndCancelsOnesInFlight(t *testing.T) {
	service := newHTTPService(t, ok(graphqlData("admin_meta", metaJSON)))
	client := admin(t, service.url, identity.WithAdminServerVersion("2.4.4"))
	if _, err := client.AdminMeta(ctx, &identity.AdminMetaInput{}); err != nil {
		t.Fatal(err)
	}
	client.Close()
	_, err := client.AdminMeta(ctx, &identity.AdminMetaInput{})
	if apiErr := wantError(t, err, identity.CodeFailedPrecondition, "admin_meta: the client is closed; make a new one"); !apiErr.Refused || len(service.log()) != 1 {
		t.Fatalf("%+v after %d requests", apiErr, len(service.log()))
	}
	slow := newGRPCService(t, func(int, grpcCall) grpcReply {
		time.Sleep(2 * time.Second)
		return grpcReply{message: message(t, "identity.v1.AdminMetaResponse")}
	})
	grpcClient := grpcAdmin(t, slow.endpoint, identity.WithAdminRetry(identity.NoRetry))
	time.AfterFunc(200*time.Millisecond, func() { grpcClient.Close() })
	started := time.Now()
	_, err = grpcClient.AdminMeta(ctx, &identity.AdminMetaInput{})
	wantError(t, err, identity.CodeCancelled, "admin_meta was cancelled")
	if time.Since(started) > 1500*time.Millisecond {
		t.Fatalf("returned after %v", time.Since(started))
	}
}

func TestBurstsShareABoundedPoolOfConnections(t *testing.T) {
	var mu sync.Mutex
	opened := 0
	server := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(graphqlData("admin_meta", metaJSON)))
	}))
	server.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			mu.Lock()
			opened++
			mu.Unlock()
		}
	}
	server.Start()
	t.Cleanup(server.Close)
	client := admin(t, server.URL, identity.WithAdminServerVersion("2.4.4"))
	var wg sync.WaitGroup
	for range 300 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := client.AdminMeta(ctx, &identity.AdminMetaInput{}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if opened > 64 {
		t.Fatalf("300 concurrent calls opened %d connections", opened)
	}
}
