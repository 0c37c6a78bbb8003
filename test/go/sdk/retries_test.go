package sdk_test

import (
	"errors"
	"testing"
	"time"

	identity "github.com/identity-interface/identity-go/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

var quick = identity.RetryPolicy{Attempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}

// flaky fails the first `failures` requests with status, then answers body.
func flaky(failures, status int, body string) func(int, recorded) reply {
	return func(n int, _ recorded) reply {
		if n <= failures {
			code := "INTERNAL"
			if status == 429 {
				code = "TOO_MANY_REQUESTS"
			}
			return reply{status: status, body: `{"code":"` + code + `","message":"try again"}`}
		}
		return reply{body: body}
	}
}

func TestReadsAreRetriedOnTransientFailures(t *testing.T) {
	for _, status := range []int{429, 502, 503, 504} {
		service := newHTTPService(t, flaky(2, status, metaJSON))
		meta, err := admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolREST), identity.WithAdminRetry(quick)).AdminMeta(ctx, nil)
		if err != nil || meta.Version != "2.4.0" || len(service.log()) != 3 {
			t.Fatalf("HTTP %d: %v after %d requests", status, err, len(service.log()))
		}
	}
	service := newHTTPService(t, flaky(5, 503, metaJSON))
	_, err := admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolREST), identity.WithAdminRetry(quick)).AdminMeta(ctx, nil)
	if apiErr := wantError(t, err, identity.CodeInternal, "try again"); apiErr.HTTPStatus != 503 || len(service.log()) != 3 {
		t.Fatalf("want the last failure after 3 attempts, got %+v after %d", apiErr, len(service.log()))
	}
}

// A write that is neither idempotent nor keyed (AdminLogin sets a cookie, and takes no key) is
// never sent twice; the writes that are retried are in idempotency_test.go.
func TestUnkeyedWritesAndLastingFailuresAreNotRetried(t *testing.T) {
	service := newHTTPService(t, flaky(1, 503, sessionJSON))
	client := admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolREST), identity.WithAdminRetry(quick))
	_, err := client.AdminLogin(ctx, &identity.AdminLoginInput{AdminSecret: secret})
	wantError(t, err, identity.CodeInternal, "try again")
	if n := len(service.log()); n != 1 {
		t.Fatalf("a write was sent %d times", n)
	}
	notFound := newHTTPService(t, func(int, recorded) reply { return reply{status: 404, body: `{"code":"NOT_FOUND","message":"gone"}`} })
	_, err = admin(t, notFound.url, identity.WithAdminProtocol(identity.ProtocolREST), identity.WithAdminRetry(quick)).AdminMeta(ctx, nil)
	wantError(t, err, identity.CodeNotFound, "gone")
	if n := len(notFound.log()); n != 1 {
		t.Fatalf("NOT_FOUND was retried: %d requests", n)
	}
	off := newHTTPService(t, flaky(1, 503, metaJSON))
	_, err = admin(t, off.url, identity.WithAdminProtocol(identity.ProtocolREST), identity.WithAdminRetry(identity.NoRetry)).AdminMeta(ctx, nil)
	wantError(t, err, identity.CodeInternal, "try again")
	if n := len(off.log()); n != 1 {
		t.Fatalf("NoRetry sent %d requests", n)
	}
}

func TestRetryAfterIsWaitedFor(t *testing.T) {
	service := newHTTPService(t, func(n int, _ recorded) reply {
		if n == 1 {
			return reply{status: 429, headers: map[string]string{"Retry-After": "0.3"}, body: `{"code":"TOO_MANY_REQUESTS","message":"slow down"}`}
		}
		return reply{body: metaJSON}
	})
	started := time.Now()
	_, err := admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolREST), identity.WithAdminRetry(quick)).AdminMeta(ctx, nil)
	if elapsed := time.Since(started); err != nil || elapsed < 280*time.Millisecond {
		t.Fatalf("want the retry after Retry-After (0.3 s), got %v after %v", err, elapsed)
	}
	// A wait past the deadline is not started: the call times out at once.
	long := newHTTPService(t, func(int, recorded) reply {
		return reply{status: 429, headers: map[string]string{"Retry-After": "30"}, body: `{"code":"TOO_MANY_REQUESTS","message":"slow down"}`}
	})
	started = time.Now()
	_, err = admin(t, long.url, identity.WithAdminProtocol(identity.ProtocolREST), identity.WithAdminRetry(quick), identity.WithAdminTimeout(2*time.Second)).AdminMeta(ctx, nil)
	apiErr := wantError(t, err, identity.CodeDeadlineExceeded, "admin_meta timed out")
	if elapsed := time.Since(started); elapsed > time.Second || len(long.log()) != 1 {
		t.Fatalf("waited %v and sent %d requests", elapsed, len(long.log()))
	}
	var cause *identity.APIError
	if !errors.As(apiErr.Unwrap(), &cause) || cause.RetryAfter != 30*time.Second {
		t.Fatalf("the server's answer must stay reachable: %v", apiErr)
	}
}

// GraphQL errors come with 200: the Retry-After header and the error's retryAfter extension both count.
func TestGraphQLErrorsSayWhenToTryAgain(t *testing.T) {
	service := newHTTPService(t, func(n int, _ recorded) reply {
		if n == 1 {
			return reply{body: `{"errors":[{"message":"the database cannot be reached","extensions":{"code":"UNAVAILABLE","retryAfter":1}}],"data":null}`}
		}
		return reply{headers: map[string]string{"Retry-After": "3"}, body: `{"errors":[{"message":"m","extensions":{"code":"UNAVAILABLE"}}],"data":null}`}
	})
	client := admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolGraphQL), identity.WithAdminRetry(identity.NoRetry))
	for _, want := range []time.Duration{time.Second, 3 * time.Second} {
		_, err := client.AdminMeta(ctx, nil)
		var apiErr *identity.APIError
		if !errors.As(err, &apiErr) || apiErr.Code != identity.CodeUnavailable || apiErr.RetryAfter != want {
			t.Errorf("want UNAVAILABLE with RetryAfter %v, got %v", want, err)
		}
	}
}

func TestGRPCReadsAreRetriedWhenUnavailable(t *testing.T) {
	service := newGRPCService(t, func(n int, _ grpcCall) grpcReply {
		if n == 1 {
			return grpcReply{err: status.Error(codes.Unavailable, "restarting")}
		}
		meta := message(t, "identity.v1.AdminMeta")
		meta.Set(meta.Descriptor().Fields().ByName("version"), protoString("2.4.0"))
		return grpcReply{message: meta}
	})
	meta, err := grpcAdmin(t, service.endpoint, identity.WithAdminRetry(quick)).AdminMeta(ctx, nil)
	if err != nil || meta.Version != "2.4.0" || len(service.log()) != 2 {
		t.Fatalf("%v %+v after %d calls", err, meta, len(service.log()))
	}
}
