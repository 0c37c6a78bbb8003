package sdk_test

import (
	"context"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	identity "github.com/identity-interface/identity-go/v2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Exactly-once writes: every call of a write that takes an idempotency key carries one (the
// caller's, else a UUID made for the call), the same on every attempt, and is retried like a read;
// a refused connection is retried whatever the operation; WithMaxRetries sets the retries of one
// call; retry-after-ms is read before Retry-After.

const (
	orgJSON     = `{"id":"o1","name":"acme","display_name":null,"enabled":true,"created_at":1,"updated_at":1}`
	sessionJSON = `{"message":"signed in","created_at":1,"expires_at":2}`
	keyHeader   = "Idempotency-Key"
	keyMetadata = "idempotency-key"
	keyForm     = "1 to 255 printable ASCII characters without spaces"
)

var (
	uuidV4        = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	httpProtocols = []identity.Protocol{identity.ProtocolGraphQL, identity.ProtocolREST}
	acme          = &identity.CreateOrganizationInput{Name: "acme"}
	adminLogin    = &identity.AdminLoginInput{AdminSecret: secret}
)

// answerOf is a successful answer of operation over protocol: in its envelope over GraphQL.
func answerOf(protocol identity.Protocol, operation, body string) string {
	if protocol == identity.ProtocolGraphQL {
		return graphqlData(operation, body)
	}
	return body
}

// unavailable is a 503 of the error model.
var unavailable = reply{status: 503, body: `{"code":"UNAVAILABLE","message":"restarting"}`}

// failFirst answers failure to the first `failures` requests, then answer.
func failFirst(failures int, failure reply, answer string) func(int, recorded) reply {
	return func(n int, _ recorded) reply {
		if n <= failures {
			return failure
		}
		return reply{body: answer}
	}
}

// httpAdmin is an admin client over protocol that knows the server's version (so that it sends
// nothing but the calls themselves).
func httpAdmin(t *testing.T, url string, protocol identity.Protocol, opts ...identity.AdminOption) *identity.AdminClient {
	t.Helper()
	return admin(t, url, append([]identity.AdminOption{identity.WithAdminProtocol(protocol), identity.WithAdminServerVersion("2.4.4")}, opts...)...)
}

// keysOf is the Idempotency-Key of each request ("" where there was none).
func keysOf(requests []recorded) []string {
	keys := make([]string, len(requests))
	for i, r := range requests {
		keys[i] = r.Header.Get(keyHeader)
	}
	return keys
}

// grpcKeysOf is the idempotency-key metadata of each call ("" where there was none).
func grpcKeysOf(calls []grpcCall) []string {
	keys := make([]string, len(calls))
	for i, call := range calls {
		if values := call.Metadata.Get(keyMetadata); len(values) > 0 {
			keys[i] = strings.Join(values, ",")
		}
	}
	return keys
}

// sameUUID reports whether keys are n copies of one UUID v4.
func sameUUID(keys []string, n int) bool {
	if len(keys) != n || !uuidV4.MatchString(keys[0]) {
		return false
	}
	for _, key := range keys {
		if key != keys[0] {
			return false
		}
	}
	return true
}

func orgMessage(t *testing.T) proto.Message {
	t.Helper()
	answer := message(t, "identity.v1.CreateOrganizationResponse")
	answer.Set(answer.Descriptor().Fields().ByName("id"), protoString("o1"))
	return answer
}

func grpcKeyed(t *testing.T, opts ...identity.AdminOption) (*grpcService, *identity.AdminClient, func(failures int, failure error)) {
	t.Helper()
	var failing atomic.Int32
	var failWith atomic.Value
	service := newGRPCService(t, func(int, grpcCall) grpcReply {
		if failing.Add(-1) >= 0 {
			return grpcReply{err: failWith.Load().(error)}
		}
		return grpcReply{message: orgMessage(t)}
	})
	client := grpcAdmin(t, service.endpoint, append([]identity.AdminOption{identity.WithAdminServerVersion("2.4.4"), identity.WithAdminRetry(quick)}, opts...)...)
	return service, client, func(failures int, failure error) {
		failWith.Store(failure)
		failing.Store(int32(failures))
	}
}

func TestKeyedWritesCarryAUUIDOfTheirOwnOverEveryProtocol(t *testing.T) {
	for _, protocol := range httpProtocols {
		service := newHTTPService(t, ok(answerOf(protocol, "create_organization", orgJSON)))
		client := httpAdmin(t, service.url, protocol, identity.WithAdminRetry(quick))
		for range 2 {
			if org, err := client.CreateOrganization(ctx, acme); err != nil || org.ID != "o1" {
				t.Fatalf("%s: %v %+v", protocol, err, org)
			}
		}
		keys := keysOf(service.log())
		if len(keys) != 2 || !uuidV4.MatchString(keys[0]) || !uuidV4.MatchString(keys[1]) || keys[0] == keys[1] {
			t.Fatalf("%s: want a new UUID v4 per call, got %q", protocol, keys)
		}
	}
	service, client, _ := grpcKeyed(t)
	for range 2 {
		if org, err := client.CreateOrganization(ctx, acme); err != nil || org.ID != "o1" {
			t.Fatalf("gRPC: %v %+v", err, org)
		}
	}
	keys := grpcKeysOf(service.log())
	if len(keys) != 2 || !uuidV4.MatchString(keys[0]) || !uuidV4.MatchString(keys[1]) || keys[0] == keys[1] {
		t.Fatalf("gRPC: want a new UUID v4 per call, got %q", keys)
	}
	// The user client's keyed writes too.
	user := newHTTPService(t, ok(`{"message":"updated"}`))
	userClient, err := identity.NewClient("c", user.url, identity.WithProtocol(identity.ProtocolREST), identity.WithServerVersion("2.4.4"))
	if err != nil {
		t.Fatal(err)
	}
	defer userClient.Close()
	if _, err := userClient.UpdateProfile(ctx, &identity.UpdateProfileInput{}); err != nil {
		t.Fatal(err)
	}
	if keys := keysOf(user.log()); !sameUUID(keys, 1) {
		t.Fatalf("UpdateProfile: %q", keys)
	}
}

func TestReadsAndWritesWithoutAKeyCarryNone(t *testing.T) {
	for _, protocol := range httpProtocols {
		service := newHTTPService(t, func(_ int, r recorded) reply {
			if strings.Contains(r.Path, "admin_login") || strings.Contains(jsonOf(t, r.Body), "admin_login") {
				return reply{body: answerOf(protocol, "admin_login", sessionJSON)}
			}
			return reply{body: answerOf(protocol, "admin_meta", metaJSON)}
		})
		client := httpAdmin(t, service.url, protocol)
		if _, err := client.AdminMeta(ctx, nil, identity.WithIdempotencyKey("ignored")); err != nil {
			t.Fatal(err)
		}
		if _, err := client.AdminLogin(ctx, adminLogin, identity.WithIdempotencyKey("ignored")); err != nil {
			t.Fatal(err)
		}
		if keys := keysOf(service.log()); len(keys) != 2 || keys[0] != "" || keys[1] != "" {
			t.Fatalf("%s: a read and a sign-in carried keys %q", protocol, keys)
		}
	}
}

func TestAKeyedWriteKeepsItsKeyOnEveryRetry(t *testing.T) {
	for _, protocol := range httpProtocols {
		for name, failure := range map[string]reply{"a 503": unavailable, "a dropped connection": {drop: true}} {
			service := newHTTPService(t, failFirst(2, failure, answerOf(protocol, "create_organization", orgJSON)))
			org, err := httpAdmin(t, service.url, protocol, identity.WithAdminRetry(quick)).CreateOrganization(ctx, acme)
			if keys := keysOf(service.log()); err != nil || org.ID != "o1" || !sameUUID(keys, 3) {
				t.Fatalf("%s after %s: %v, keys %q", protocol, name, err, keys)
			}
		}
	}
	// A write declared idempotent (DeleteUser) takes a key too, and is retried with it.
	service := newHTTPService(t, failFirst(1, unavailable, `{"message":"deleted"}`))
	if _, err := httpAdmin(t, service.url, identity.ProtocolREST, identity.WithAdminRetry(quick)).DeleteUser(ctx, &identity.DeleteUserInput{ID: "u"}); err != nil || !sameUUID(keysOf(service.log()), 2) {
		t.Fatalf("DeleteUser: %v, keys %q", err, keysOf(service.log()))
	}
	grpcService, client, failFirstCalls := grpcKeyed(t)
	failFirstCalls(2, status.Error(codes.Unavailable, "restarting"))
	org, err := client.CreateOrganization(ctx, acme)
	if keys := grpcKeysOf(grpcService.log()); err != nil || org.ID != "o1" || !sameUUID(keys, 3) {
		t.Fatalf("gRPC: %v, keys %q", err, keys)
	}
}

func TestWithIdempotencyKeySendsTheCallersKey(t *testing.T) {
	const key = "order-42:create/v1~#"
	long := strings.Repeat("k", 255)
	for _, protocol := range httpProtocols {
		service := newHTTPService(t, failFirst(1, unavailable, answerOf(protocol, "create_organization", orgJSON)))
		client := httpAdmin(t, service.url, protocol, identity.WithAdminRetry(quick), identity.WithAdminExtraHeaders(map[string]string{keyHeader: "the client's"}))
		if _, err := client.CreateOrganization(ctx, acme, identity.WithIdempotencyKey(key)); err != nil {
			t.Fatal(err)
		}
		if _, err := client.CreateOrganization(ctx, acme, identity.WithIdempotencyKey(long)); err != nil {
			t.Fatal(err)
		}
		if keys := keysOf(service.log()); len(keys) != 3 || keys[0] != key || keys[1] != key || keys[2] != long {
			t.Fatalf("%s: keys %q", protocol, keys)
		}
	}
	service, client, failFirstCalls := grpcKeyed(t)
	failFirstCalls(1, status.Error(codes.Unavailable, "restarting"))
	if _, err := client.CreateOrganization(ctx, acme, identity.WithIdempotencyKey(key)); err != nil {
		t.Fatal(err)
	}
	if keys := grpcKeysOf(service.log()); len(keys) != 2 || keys[0] != key || keys[1] != key {
		t.Fatalf("gRPC: keys %q", keys)
	}
}

func TestABadIdempotencyKeyIsRefusedBeforeAnythingIsSent(t *testing.T) {
	bad := []string{"", "two words", "tab\tkey", "clé", "nul\x00", "line\n", strings.Repeat("k", 256)}
	// Without a server version, a call over REST would first ask the server for it: nothing at all is sent.
	service := newHTTPService(t, ok(orgJSON))
	client := admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolREST), identity.WithAdminRetry(quick))
	grpcService, grpcClient, _ := grpcKeyed(t)
	for _, key := range bad {
		for protocol, call := range map[identity.Protocol]func() error{
			identity.ProtocolREST: func() error {
				_, err := client.CreateOrganization(ctx, acme, identity.WithIdempotencyKey(key))
				return err
			},
			identity.ProtocolGRPC: func() error {
				_, err := grpcClient.CreateOrganization(ctx, acme, identity.WithIdempotencyKey(key))
				return err
			},
		} {
			apiErr := wantError(t, call(), identity.CodeInvalidArgument, "")
			if !apiErr.Refused || apiErr.Operation != "create_organization" || apiErr.Protocol != protocol ||
				!contains(apiErr.Message, "WithIdempotencyKey") || !contains(apiErr.Message, keyForm) {
				t.Errorf("%s %q: %+v", protocol, key, apiErr)
			}
		}
	}
	if len(service.log()) != 0 || len(grpcService.log()) != 0 {
		t.Fatalf("sent %d requests and %d gRPC calls", len(service.log()), len(grpcService.log()))
	}
}

func TestAWriteWithoutAKeyIsNotRetriedAfterA503(t *testing.T) {
	for _, protocol := range httpProtocols {
		service := newHTTPService(t, failFirst(1, unavailable, answerOf(protocol, "admin_login", sessionJSON)))
		_, err := httpAdmin(t, service.url, protocol, identity.WithAdminRetry(quick)).AdminLogin(ctx, adminLogin, identity.WithMaxRetries(3))
		wantError(t, err, identity.CodeUnavailable, "")
		if n := len(service.log()); n != 1 {
			t.Fatalf("%s: AdminLogin was sent %d times", protocol, n)
		}
	}
	service := newGRPCService(t, func(int, grpcCall) grpcReply { return grpcReply{err: status.Error(codes.Unavailable, "restarting")} })
	_, err := grpcAdmin(t, service.endpoint, identity.WithAdminRetry(quick)).AdminLogin(ctx, adminLogin)
	wantError(t, err, identity.CodeUnavailable, "admin_login: no answer from the service (restarting)")
	if n := len(service.log()); n != 1 {
		t.Fatalf("gRPC: AdminLogin was sent %d times", n)
	}
}

// closedAddress is a loopback address nothing listens on: a connection to it is refused.
func closedAddress(t *testing.T) string {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	address := listener.Addr().String()
	listener.Close()
	return address
}

// refusingDialer sends its first `refusals` dials to a closed port (the kernel refuses them), the
// others where they were going.
type refusingDialer struct {
	refusals int32
	closed   string
	dials    atomic.Int32
}

func (d *refusingDialer) dial(ctx context.Context, network, address string) (net.Conn, error) {
	if d.dials.Add(1) <= d.refusals {
		address = d.closed
	}
	var dialer net.Dialer
	return dialer.DialContext(ctx, network, address)
}

func TestARefusedConnectionIsRetriedWhateverTheOperation(t *testing.T) {
	for _, protocol := range httpProtocols {
		for _, c := range []struct {
			refusals int32
			policy   identity.RetryPolicy
			opts     []identity.CallOption
			dials    int32
			sent     int
		}{
			{2, quick, nil, 3, 1},            // refused twice, answered the third time
			{5, quick, nil, 3, 0},            // refused every time the policy allows
			{2, identity.NoRetry, nil, 1, 0}, // no retries
			{2, identity.NoRetry, []identity.CallOption{identity.WithMaxRetries(2)}, 3, 1}, // the call's own
		} {
			service := newHTTPService(t, ok(answerOf(protocol, "admin_login", sessionJSON)))
			dialer := &refusingDialer{refusals: c.refusals, closed: closedAddress(t)}
			httpClient := &http.Client{Transport: &http.Transport{DialContext: dialer.dial}}
			client := httpAdmin(t, service.url, protocol, identity.WithAdminRetry(c.policy), identity.WithAdminHTTPClient(httpClient))
			session, err := client.AdminLogin(ctx, adminLogin, c.opts...)
			if c.sent == 1 && (err != nil || session.Message != "signed in") {
				t.Errorf("%s, %d refusals: %v", protocol, c.refusals, err)
			}
			if c.sent == 0 {
				if apiErr := wantError(t, err, identity.CodeUnavailable, ""); !contains(apiErr.Message, "connection refused") {
					t.Errorf("%s: %q", protocol, apiErr.Message)
				}
			}
			if dialer.dials.Load() != c.dials || len(service.log()) != c.sent {
				t.Errorf("%s, %d refusals: %d dials, %d requests; want %d, %d", protocol, c.refusals, dialer.dials.Load(), len(service.log()), c.dials, c.sent)
			}
			httpClient.CloseIdleConnections()
		}
	}
	// Over gRPC, UNAVAILABLE saying the connection was refused (the channel redials quickly here).
	service := newGRPCService(t, func(int, grpcCall) grpcReply { return grpcReply{message: message(t, "identity.v1.AdminLoginResponse")} })
	dialer := &refusingDialer{refusals: 1, closed: closedAddress(t)}
	redial := grpc.ConnectParams{Backoff: backoff.Config{BaseDelay: 10 * time.Millisecond, Multiplier: 1, MaxDelay: 10 * time.Millisecond}, MinConnectTimeout: time.Second}
	client := grpcAdmin(t, service.endpoint, identity.WithAdminRetry(identity.RetryPolicy{Attempts: 20, BaseDelay: 20 * time.Millisecond, MaxDelay: 50 * time.Millisecond}),
		identity.WithAdminGRPCDialOptions(grpc.WithContextDialer(func(ctx context.Context, address string) (net.Conn, error) { return dialer.dial(ctx, "tcp", address) }), grpc.WithConnectParams(redial)))
	if _, err := client.AdminLogin(ctx, adminLogin); err != nil || len(service.log()) != 1 || dialer.dials.Load() < 2 {
		t.Fatalf("gRPC: %v after %d dials and %d calls", err, dialer.dials.Load(), len(service.log()))
	}
	// A refusal the policy does not retry is the call's failure.
	refused := grpcAdmin(t, closedAddress(t), identity.WithAdminRetry(identity.NoRetry))
	_, err := refused.AdminLogin(ctx, adminLogin)
	if apiErr := wantError(t, err, identity.CodeUnavailable, ""); !contains(apiErr.Message, "connection refused") {
		t.Fatalf("gRPC: %q", apiErr.Message)
	}
}

func TestWithMaxRetriesSetsTheAttemptsOfOneCall(t *testing.T) {
	service := newHTTPService(t, func(int, recorded) reply { return unavailable })
	client := httpAdmin(t, service.url, identity.ProtocolREST, identity.WithAdminRetry(quick)) // 3 attempts
	noRetry := httpAdmin(t, service.url, identity.ProtocolREST, identity.WithAdminRetry(identity.NoRetry))
	sent := func(call func() error) int {
		before := len(service.log())
		wantError(t, call(), identity.CodeUnavailable, "restarting")
		return len(service.log()) - before
	}
	for _, c := range []struct {
		client *identity.AdminClient
		opts   []identity.CallOption
		want   int
	}{
		{client, nil, 3},
		{client, []identity.CallOption{identity.WithMaxRetries(0)}, 1},
		{client, []identity.CallOption{identity.WithMaxRetries(2)}, 3},
		{client, []identity.CallOption{identity.WithMaxRetries(4)}, 5},
		{noRetry, []identity.CallOption{identity.WithMaxRetries(2)}, 3},
	} {
		if n := sent(func() error { _, err := c.client.AdminMeta(ctx, nil, c.opts...); return err }); n != c.want {
			t.Errorf("AdminMeta with %d options: %d attempts, want %d", len(c.opts), n, c.want)
		}
	}
	before := len(service.log())
	if n := sent(func() error { _, err := client.CreateOrganization(ctx, acme, identity.WithMaxRetries(2)); return err }); n != 3 || !sameUUID(keysOf(service.log()[before:]), 3) {
		t.Errorf("CreateOrganization: %d attempts, keys %q", n, keysOf(service.log()[before:]))
	}
	if n := sent(func() error { _, err := noRetry.CreateOrganization(ctx, acme, identity.WithMaxRetries(0)); return err }); n != 1 {
		t.Errorf("CreateOrganization, no retry: %d attempts", n)
	}
	before = len(service.log())
	_, err := client.CreateOrganization(ctx, acme, identity.WithMaxRetries(-1))
	apiErr := wantError(t, err, identity.CodeInvalidArgument, "create_organization: WithMaxRetries must be 0 or more retries, not -1")
	if !apiErr.Refused || len(service.log()) != before {
		t.Fatalf("%+v after %d requests", apiErr, len(service.log())-before)
	}
}

func TestRetryAfterMsIsReadBeforeRetryAfter(t *testing.T) {
	tooMany := func(headers map[string]string) reply {
		return reply{status: 429, headers: headers, body: `{"code":"TOO_MANY_REQUESTS","message":"slow down"}`}
	}
	for _, protocol := range httpProtocols {
		for _, c := range []struct {
			headers map[string]string
			want    time.Duration
		}{
			{map[string]string{"retry-after-ms": "250.5", "Retry-After": "30"}, 250500 * time.Microsecond},
			{map[string]string{"retry-after-ms": "40"}, 40 * time.Millisecond},
			{map[string]string{"retry-after-ms": "soon", "Retry-After": "2"}, 2 * time.Second},
			{map[string]string{"retry-after-ms": "-5", "Retry-After": "2"}, 2 * time.Second},
		} {
			service := newHTTPService(t, func(int, recorded) reply { return tooMany(c.headers) })
			_, err := httpAdmin(t, service.url, protocol, identity.WithAdminRetry(identity.NoRetry)).AdminMeta(ctx, nil)
			if apiErr := wantError(t, err, identity.CodeTooManyRequests, ""); apiErr.RetryAfter != c.want {
				t.Errorf("%s %v: RetryAfter %v, want %v", protocol, c.headers, apiErr.RetryAfter, c.want)
			}
		}
		// The retry waits what retry-after-ms asks, not Retry-After (which is past the deadline).
		service := newHTTPService(t, func(n int, _ recorded) reply {
			if n == 1 {
				return tooMany(map[string]string{"retry-after-ms": "200", "Retry-After": "30"})
			}
			return reply{body: answerOf(protocol, "create_organization", orgJSON)}
		})
		client := httpAdmin(t, service.url, protocol, identity.WithAdminRetry(quick), identity.WithAdminTimeout(5*time.Second))
		started := time.Now()
		_, err := client.CreateOrganization(ctx, acme)
		if elapsed := time.Since(started); err != nil || elapsed < 190*time.Millisecond || elapsed > 3*time.Second || !sameUUID(keysOf(service.log()), 2) {
			t.Fatalf("%s: %v after %v", protocol, err, elapsed)
		}
		// Over the cap of Retry-After, it is not waited for either: the usual backoff applies.
		capped := newHTTPService(t, func(n int, _ recorded) reply {
			if n == 1 {
				return tooMany(map[string]string{"retry-after-ms": "120000"})
			}
			return reply{body: answerOf(protocol, "admin_meta", metaJSON)}
		})
		started = time.Now()
		_, err = httpAdmin(t, capped.url, protocol, identity.WithAdminRetry(quick)).AdminMeta(ctx, nil)
		if elapsed := time.Since(started); err != nil || elapsed > time.Second || len(capped.log()) != 2 {
			t.Fatalf("%s, capped: %v after %v", protocol, err, elapsed)
		}
	}
	service := newGRPCService(t, func(int, grpcCall) grpcReply {
		return grpcReply{err: status.Error(codes.Unavailable, "draining"), trailer: metadata.Pairs("retry-after-ms", "120", "retry-after", "9")}
	})
	_, err := grpcAdmin(t, service.endpoint, identity.WithAdminRetry(identity.NoRetry)).AdminMeta(ctx, nil)
	if apiErr := wantError(t, err, identity.CodeUnavailable, ""); apiErr.RetryAfter != 120*time.Millisecond {
		t.Fatalf("gRPC: RetryAfter %v", apiErr.RetryAfter)
	}
}

// An answer that cannot be read is never retried, and its code is by kind: a keyed write, retried
// on transient failures, is OUTCOME_UNKNOWN (its key makes a repeat safe), a read INTERNAL.
func TestAnUndecodableGRPCAnswerIsByKind(t *testing.T) {
	service := newGRPCService(t, func(int, grpcCall) grpcReply { return grpcReply{raw: []byte{0xff}} })
	client := grpcAdmin(t, service.endpoint, identity.WithAdminServerVersion("2.4.4"), identity.WithAdminRetry(quick))
	_, err := client.CreateOrganization(ctx, acme)
	if apiErr := wantError(t, err, identity.CodeOutcomeUnknown, ""); !contains(apiErr.Message, "the write may have happened") || len(service.log()) != 1 {
		t.Fatalf("%q after %d calls", apiErr.Message, len(service.log()))
	}
	_, err = client.AdminMeta(ctx, nil)
	if wantError(t, err, identity.CodeInternal, ""); len(service.log()) != 2 {
		t.Fatalf("%d calls", len(service.log()))
	}
}
