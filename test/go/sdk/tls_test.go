package sdk_test

import (
	"crypto/tls"
	"strings"
	"testing"
	"time"

	identity "github.com/identity-interface/identity-go/v2"
)

// 192.0.2.1 (TEST-NET-1) is not loopback: a call sent there would fail or time out, never be refused.
const remote = "http://192.0.2.1:8080"

func TestPlaintextToAnotherHostIsRefusedBeforeSending(t *testing.T) {
	for _, protocol := range []identity.Protocol{identity.ProtocolGraphQL, identity.ProtocolREST, identity.ProtocolGRPC} {
		client, err := identity.NewAdminClient(remote, "secret", identity.WithAdminProtocol(protocol), identity.WithAdminServerVersion("2.4.0"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = client.AdminMeta(ctx, &identity.AdminMetaInput{})
		apiErr := apiError(t, err)
		target := remote
		if protocol == identity.ProtocolGRPC {
			target = "gRPC 192.0.2.1:9091"
		}
		if !apiErr.Refused || apiErr.Code != identity.CodeFailedPrecondition ||
			!strings.HasPrefix(apiErr.Message, "refusing to send credentials in clear to "+target+": ") ||
			!strings.HasSuffix(apiErr.Message, "or set WithAdminInsecureTransport() to send them anyway") {
			t.Errorf("%s: %+v", protocol, apiErr)
		}
		client.Close()
	}
	user, _ := identity.NewClient("app", remote, identity.WithServerVersion("2.4.0"))
	_, err := user.Meta(ctx, &identity.MetaInput{})
	if apiErr := apiError(t, err); !apiErr.Refused || !strings.Contains(apiErr.Message, "WithInsecureTransport()") {
		t.Errorf("user client: %+v", apiErr)
	}
}

func TestInsecureTransportSendsAndLoopbackNeedsNothing(t *testing.T) {
	client, _ := identity.NewAdminClient(remote, "secret", identity.WithAdminInsecureTransport(), identity.WithAdminServerVersion("2.4.0"),
		identity.WithAdminTimeout(300*time.Millisecond), identity.WithAdminRetry(identity.NoRetry))
	_, err := client.AdminMeta(ctx, &identity.AdminMetaInput{})
	if apiErr := apiError(t, err); apiErr.Refused || (apiErr.Code != identity.CodeUnavailable && apiErr.Code != identity.CodeDeadlineExceeded) {
		t.Errorf("opted in: %+v", apiErr)
	}
	service := newHTTPService(t, ok(graphqlData("admin_meta", `{"version":"2.4.4"}`)))
	if _, err := admin(t, service.url).AdminMeta(ctx, &identity.AdminMetaInput{}); err != nil {
		t.Fatalf("loopback: %v", err)
	}
}

func TestGRPCTLSFollowsTheSchemeUnlessTold(t *testing.T) {
	// https:// and no option: gRPC is TLS, so calls to another host are not refused for being in clear.
	secure, _ := identity.NewAdminClient("https://192.0.2.1", "secret", identity.WithAdminProtocol(identity.ProtocolGRPC),
		identity.WithAdminServerVersion("2.4.0"), identity.WithAdminTimeout(300*time.Millisecond), identity.WithAdminRetry(identity.NoRetry))
	_, err := secure.AdminMeta(ctx, &identity.AdminMetaInput{})
	if apiErr := apiError(t, err); apiErr.Refused {
		t.Errorf("https:// refused gRPC: %+v", apiErr)
	}
	// WithAdminGRPCInsecure over https://: plaintext gRPC to another host is refused, naming the TLS option.
	plain, _ := identity.NewAdminClient("https://192.0.2.1", "secret", identity.WithAdminProtocol(identity.ProtocolGRPC), identity.WithAdminGRPCInsecure(), identity.WithAdminServerVersion("2.4.0"))
	_, err = plain.AdminMeta(ctx, &identity.AdminMetaInput{})
	if apiErr := apiError(t, err); !apiErr.Refused || !strings.Contains(apiErr.Message, "use WithAdminGRPCTLS") {
		t.Errorf("insecure gRPC: %+v", apiErr)
	}
	// WithAdminGRPCTLS over http:// to loopback: TLS to a plaintext port fails as no answer, not as a refusal.
	service := newGRPCService(t, func(int, grpcCall) grpcReply { return grpcReply{message: message(t, "identity.v1.AdminMetaResponse")} })
	client := grpcAdmin(t, service.endpoint, identity.WithAdminGRPCTLS(&tls.Config{}), identity.WithAdminRetry(identity.NoRetry), identity.WithAdminTimeout(2*time.Second))
	_, err = client.AdminMeta(ctx, &identity.AdminMetaInput{})
	if apiErr := apiError(t, err); apiErr.Refused || apiErr.Code != identity.CodeUnavailable {
		t.Errorf("TLS to a plaintext port: %+v", apiErr)
	}
}
