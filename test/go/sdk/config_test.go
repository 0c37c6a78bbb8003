package sdk_test

import (
	"strings"
	"testing"

	identity "github.com/identity-interface/identity-go/v2"
)

func TestConstructorsReadTheEnvironment(t *testing.T) {
	service := newHTTPService(t, ok(metaJSON))
	t.Setenv("IDENTITY_SERVICE_URL", service.url)
	t.Setenv("IDENTITY_ADMIN_SECRET", "from-the-environment")
	t.Setenv("IDENTITY_ACCESS_TOKEN", "env-token")

	client, err := identity.NewAdminClient("", "", identity.WithAdminProtocol(identity.ProtocolREST))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if _, err := client.AdminMeta(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := service.log()[0].Header.Get("X-Service-Admin-Secret"); got != "from-the-environment" {
		t.Fatalf("admin secret %q", got)
	}
	// What the code gives wins.
	given, err := identity.NewAdminClient(service.url, "given", identity.WithAdminProtocol(identity.ProtocolREST))
	if err != nil {
		t.Fatal(err)
	}
	defer given.Close()
	if _, err := given.AdminMeta(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := service.log()[1].Header.Get("X-Service-Admin-Secret"); got != "given" {
		t.Fatalf("admin secret given %q", got)
	}

	user, err := identity.NewClient("app", "", identity.WithProtocol(identity.ProtocolREST))
	if err != nil {
		t.Fatal(err)
	}
	defer user.Close()
	if _, err := user.Meta(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := service.log()[2].Header.Get("Authorization"); got != "Bearer env-token" {
		t.Fatalf("user token %q", got)
	}
	signedIn, err := identity.NewClient("app", service.url, identity.WithProtocol(identity.ProtocolREST), identity.WithAccessToken("given-token"))
	if err != nil {
		t.Fatal(err)
	}
	defer signedIn.Close()
	if _, err := signedIn.Meta(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := service.log()[3].Header.Get("Authorization"); got != "Bearer given-token" {
		t.Fatalf("user token given %q", got)
	}
}

func TestConstructorsNameTheVariableOfAMissingSetting(t *testing.T) {
	t.Setenv("IDENTITY_SERVICE_URL", "")
	t.Setenv("IDENTITY_ADMIN_SECRET", "")
	t.Setenv("IDENTITY_ACCESS_TOKEN", "")
	_, err := identity.NewAdminClient("", "")
	if err == nil || !strings.Contains(err.Error(), "serviceURL is required, or the environment variable IDENTITY_SERVICE_URL") ||
		!strings.Contains(err.Error(), "adminSecret is required (or the environment variable IDENTITY_ADMIN_SECRET), or WithAdminAccessToken") {
		t.Fatalf("error %v", err)
	}
	if _, err := identity.NewClient("app", ""); err == nil || !strings.Contains(err.Error(), "IDENTITY_SERVICE_URL") {
		t.Fatalf("error %v", err)
	}
	// An org-admin's token from the environment, when no secret is there.
	t.Setenv("IDENTITY_ACCESS_TOKEN", "org-admin-token")
	service := newHTTPService(t, ok(metaJSON))
	client, err := identity.NewAdminClient(service.url, "", identity.WithAdminProtocol(identity.ProtocolREST))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if _, err := client.AdminMeta(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if r := service.log()[0]; r.Header.Get("Authorization") != "Bearer org-admin-token" || r.Header.Get("X-Service-Admin-Secret") != "" {
		t.Fatalf("headers %v", r.Header)
	}
}
