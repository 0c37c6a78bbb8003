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

// The admin's own version read needs the secret: an org-admin's client asks the read anyone may
// call, and the admin's client its own.
func TestAnOrgAdminsClientLearnsTheServerVersionFromTheOpenRead(t *testing.T) {
	answer := func(n int, r recorded) reply {
		if n == 1 {
			return reply{body: `{"version":"2.6.0"}`}
		}
		return reply{body: `{"id":"o","name":"acme"}`}
	}
	orgAdmin := newHTTPService(t, answer)
	client, err := identity.NewAdminClient(orgAdmin.url, "", identity.WithAdminAccessToken("org-admin-token"), identity.WithAdminProtocol(identity.ProtocolREST))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if org, err := client.GetOrganization(ctx, &identity.GetOrganizationInput{ID: "o"}); err != nil || org.Name != "acme" {
		t.Fatalf("GetOrganization: %v, %v", org, err)
	}
	log := orgAdmin.log()
	if len(log) != 2 || log[0].Method != "GET" || log[0].Path != "/v1/meta" || log[0].Header.Get("Authorization") != "Bearer org-admin-token" {
		t.Fatalf("requests %+v", log)
	}

	secret := newHTTPService(t, answer)
	root, err := identity.NewAdminClient(secret.url, "s3cret", identity.WithAdminProtocol(identity.ProtocolREST))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if _, err := root.GetOrganization(ctx, &identity.GetOrganizationInput{ID: "o"}); err != nil {
		t.Fatal(err)
	}
	if first := secret.log()[0]; first.Path != "/v1/admin/admin_meta" || first.Header.Get("X-Service-Admin-Secret") != "s3cret" {
		t.Fatalf("first request %+v", first)
	}
}
