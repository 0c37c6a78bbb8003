package sdk_test

import (
	"sync"
	"testing"

	identity "github.com/identity-interface/identity-go/v2"
)

func TestOperationNotCarriedIsRefusedBeforeSending(t *testing.T) {
	service := newHTTPService(t, ok(`{}`))
	client := admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolREST))
	_, err := client.AdminSignup(ctx, &identity.AdminSignupInput{AdminSecret: "x"})
	apiErr := wantError(t, err, identity.CodeFailedPrecondition, "AdminSignup not available over rest; use graphql")
	if !apiErr.Refused || apiErr.Operation != "admin_signup" || apiErr.Protocol != identity.ProtocolREST {
		t.Fatalf("refusal: %+v", apiErr)
	}
	if len(service.log()) != 0 {
		t.Fatalf("a refused call sent %d requests", len(service.log()))
	}
}

func TestReadOnlyClientRefusesDestructiveOperations(t *testing.T) {
	service := newHTTPService(t, ok(graphqlData("admin_meta", metaJSON)))
	client := admin(t, service.url, identity.WithAdminReadOnly())
	_, err := client.DeleteUser(ctx, &identity.DeleteUserInput{ID: "u"})
	if apiErr := wantError(t, err, identity.CodeFailedPrecondition, "DeleteUser is destructive and this client is read-only"); !apiErr.Refused {
		t.Fatal("not marked refused")
	}
	if _, err := client.AdminMeta(ctx, nil); err != nil {
		t.Fatalf("a read of a read-only client: %v", err)
	}
	if n := len(service.log()); n != 1 {
		t.Fatalf("want only the read sent, got %d requests", n)
	}
}

func TestOperationTheServerVersionDoesNotCarryIsRefused(t *testing.T) {
	client := admin(t, "http://127.0.0.1:1", identity.WithAdminProtocol(identity.ProtocolREST), identity.WithAdminServerVersion("2.3.0"))
	_, err := client.GetOrganization(ctx, &identity.GetOrganizationInput{ID: "o"})
	wantError(t, err, identity.CodeFailedPrecondition, "GetOrganization not available over rest; use graphql (needs server 2.4.0 or later on rest; the server is 2.3.0)")
	older := grpcAdmin(t, "127.0.0.1:1", identity.WithAdminServerVersion("2.3.0-rc.1"))
	_, err = older.GetOrganization(ctx, &identity.GetOrganizationInput{ID: "o"})
	wantError(t, err, identity.CodeFailedPrecondition, "GetOrganization not available over grpc; no protocol carries it on this server (needs server 2.4.0 or later on grpc; the server is 2.3.0-rc.1)")
	// Pre-releases come before the release; build metadata does not count.
	for version, refused := range map[string]bool{"2.4.0-rc.1": true, "2.4.0+build.7": false, "v2.4.1": false, "10.0.0": false} {
		client := admin(t, "http://127.0.0.1:1", identity.WithAdminProtocol(identity.ProtocolREST), identity.WithAdminServerVersion(version), identity.WithAdminRetry(identity.NoRetry))
		_, err := client.GetOrganization(ctx, &identity.GetOrganizationInput{ID: "o"})
		if got := apiError(t, err).Refused; got != refused {
			t.Errorf("server %s: refused %v, want %v (%v)", version, got, refused, err)
		}
	}
}

func TestServerVersionIsAskedOnceWhenItMatters(t *testing.T) {
	service := newHTTPService(t, func(_ int, r recorded) reply {
		if r.Path == "/v1/admin/admin_meta" {
			return reply{body: metaJSON}
		}
		return reply{body: `{"id":"o","name":"acme","enabled":true,"created_at":1,"updated_at":2}`}
	})
	client := admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolREST))
	// admin_meta carries the lowest version of every protocol: asking it needs no version.
	if _, err := client.AdminMeta(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		organization, err := client.GetOrganization(ctx, &identity.GetOrganizationInput{ID: "o"})
		if err != nil || organization.Name != "acme" {
			t.Fatalf("GetOrganization: %v %+v", err, organization)
		}
	}
	var paths []string
	for _, r := range service.log() {
		paths = append(paths, r.Path)
	}
	want := []string{"/v1/admin/admin_meta", "/v1/admin/admin_meta", "/v1/admin/get_organization", "/v1/admin/get_organization"}
	if jsonOf(t, paths) != jsonOf(t, want) {
		t.Fatalf("requests %v, want %v", paths, want)
	}
}

func TestConcurrentCallsAskTheVersionOnce(t *testing.T) {
	service := newHTTPService(t, func(_ int, r recorded) reply {
		if r.Path == "/v1/admin/admin_meta" {
			return reply{body: metaJSON}
		}
		return reply{body: `{}`}
	})
	client := admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolREST))
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := client.GetOrganization(ctx, &identity.GetOrganizationInput{ID: "o"}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	questions := 0
	for _, r := range service.log() {
		if r.Path == "/v1/admin/admin_meta" {
			questions++
		}
	}
	if questions != 1 || len(service.log()) != 9 {
		t.Fatalf("%d version questions in %d requests, want 1 in 9", questions, len(service.log()))
	}
}

func TestAFailedVersionQuestionIsAskedAgain(t *testing.T) {
	service := newHTTPService(t, func(n int, r recorded) reply {
		if n == 1 {
			return reply{status: 403, body: `{"code":"PERMISSION_DENIED","message":"no"}`}
		}
		if r.Path == "/v1/admin/admin_meta" {
			return reply{body: `{"version":"2.3.0"}`}
		}
		return reply{body: `{}`}
	})
	client := admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolREST))
	_, err := client.GetOrganization(ctx, &identity.GetOrganizationInput{ID: "o"})
	wantError(t, err, identity.CodePermissionDenied, "no")
	_, err = client.GetOrganization(ctx, &identity.GetOrganizationInput{ID: "o"})
	wantError(t, err, identity.CodeFailedPrecondition, "GetOrganization not available over rest; use graphql (needs server 2.4.0 or later on rest; the server is 2.3.0)")
	if n := len(service.log()); n != 2 {
		t.Fatalf("want 2 version questions and nothing else, got %d requests", n)
	}
}

func TestConfigurationMistakesAreReportedByTheConstructor(t *testing.T) {
	cases := []struct {
		name string
		make func() error
		want string
	}{
		{"no secret", func() error { _, err := identity.NewAdminClient("http://localhost:8080", ""); return err }, "identity: adminSecret is required"},
		{"no client id", func() error { _, err := identity.NewClient("", "http://localhost:8080"); return err }, "identity: clientID is required"},
		{"not a URL", func() error { _, err := identity.NewAdminClient("localhost:8080", secret); return err }, `serviceURL must be an http or https URL such as http://localhost:8080, not "localhost:8080"`},
		{"protocol", func() error {
			_, err := identity.NewAdminClient("http://localhost:8080", secret, identity.WithAdminProtocol("soap"))
			return err
		}, `protocol must be one of graphql, rest, grpc, not "soap"`},
		{"gRPC endpoint as a URL", func() error {
			_, err := identity.NewAdminClient("http://localhost:8080", secret, identity.WithAdminGRPCEndpoint("http://localhost:28418"))
			return err
		}, `the gRPC endpoint (WithGRPCEndpoint, WithAdminGRPCEndpoint) must be host:port, such as localhost:9091, not "http://localhost:28418"`},
		{"gRPC endpoint without a port", func() error {
			_, err := identity.NewClient("c", "http://localhost:8080", identity.WithGRPCEndpoint("localhost"))
			return err
		}, `must be host:port, such as localhost:9091, not "localhost"`},
		{"version", func() error {
			_, err := identity.NewClient("c", "http://localhost:8080", identity.WithServerVersion("2.4"))
			return err
		}, `server version: "2.4" is not a version`},
	}
	for _, c := range cases {
		err := c.make()
		if err == nil || !contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to say %q", c.name, err, c.want)
		}
	}
	client, err := identity.NewAdminClient("http://identity.example.com:8080/", secret)
	if err != nil || client.GRPCEndpoint() != "identity.example.com:9091" || client.Protocol() != identity.ProtocolGraphQL {
		t.Fatalf("defaults: %v %q %q", err, client.GRPCEndpoint(), client.Protocol())
	}
	ipv6, _ := identity.NewClient("c", "http://[::1]:8080")
	if ipv6.GRPCEndpoint() != "[::1]:9091" {
		t.Fatalf("IPv6 endpoint %q", ipv6.GRPCEndpoint())
	}
}

func TestValuesTheWireCannotCarryAreRefused(t *testing.T) {
	service := newGRPCService(t, func(int, grpcCall) grpcReply { return grpcReply{message: message(t, "identity.v1.TrustedIssuer")} })
	client := grpcAdmin(t, service.endpoint, identity.WithAdminServerVersion("2.4.0"))
	_, err := client.UpdateTrustedIssuer(ctx, &identity.UpdateTrustedIssuerInput{ID: "t", KeySourceType: identity.Ptr(identity.KeySourceType("bogus"))})
	if apiErr := wantError(t, err, identity.CodeInvalidArgument, "key_source_type: must be one of jwks_url, oidc_discovery"); !apiErr.Refused {
		t.Fatal("not marked refused")
	}
	_, err = client.Users(ctx, &identity.UsersInput{Pagination: &identity.PaginationInput{Limit: identity.Int64(1 << 60)}})
	wantError(t, err, identity.CodeInvalidArgument, "pagination.limit: must be an integer")
	_, err = client.UpdateUser(ctx, &identity.UpdateUserInput{ID: "u", AppData: map[string]any{"f": func() {}}})
	wantError(t, err, identity.CodeInvalidArgument, "app_data: must be a JSON object")
	_, err = client.FGAWriteTuples(ctx, &identity.FGAWriteTuplesInput{Tuples: []*identity.FGATupleInput{{User: "u", Relation: "r", Object: "o"}, nil}})
	wantError(t, err, identity.CodeInvalidArgument, "tuples[1]: must be an object")
	if n := len(service.log()); n != 0 {
		t.Fatalf("refused calls sent %d requests", n)
	}
	// JSON transports cannot carry a function either; enums and big numbers are the server's to judge there.
	rest := admin(t, "http://127.0.0.1:1", identity.WithAdminProtocol(identity.ProtocolREST))
	_, err = rest.UpdateUser(ctx, &identity.UpdateUserInput{ID: "u", AppData: map[string]any{"f": make(chan int)}})
	wantError(t, err, identity.CodeInvalidArgument, "app_data: must be a JSON object")
}
