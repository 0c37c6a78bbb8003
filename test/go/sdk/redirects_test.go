package sdk_test

import (
	"errors"
	"net/http"
	"testing"

	identity "github.com/identity-interface/identity-go/v2"
)

// A redirect is never followed: Go's http.Client would send the admin secret header to whatever
// address it names. It is an *APIError, and the other address hears nothing.
func TestRedirectsAreNotFollowed(t *testing.T) {
	elsewhere := newHTTPService(t, ok(graphqlData("admin_meta", metaJSON)))
	for _, protocol := range []identity.Protocol{identity.ProtocolGraphQL, identity.ProtocolREST} {
		service := newHTTPService(t, func(int, recorded) reply {
			return reply{status: http.StatusTemporaryRedirect, headers: map[string]string{"location": elsewhere.url + "/graphql"}}
		})
		_, err := admin(t, service.url, identity.WithAdminProtocol(protocol), identity.WithAdminRetry(identity.NoRetry)).AdminMeta(ctx, nil)
		var apiErr *identity.APIError
		if !errors.As(err, &apiErr) {
			t.Errorf("%s: a redirect answered %T %v, want an *APIError", protocol, err, err)
		}
	}
	if n := len(elsewhere.log()); n != 0 {
		t.Errorf("the redirect was followed: %d requests reached the other address", n)
	}
}

// The same with an http.Client of the caller's, which follows redirects by default: the security
// review saw WithAdminHTTPClient(&http.Client{}) follow a 307 and send the admin secret elsewhere.
func TestRedirectsAreNotFollowedWithTheCallersHTTPClient(t *testing.T) {
	elsewhere := newHTTPService(t, ok(graphqlData("admin_meta", metaJSON)))
	for _, protocol := range []identity.Protocol{identity.ProtocolGraphQL, identity.ProtocolREST} {
		service := newHTTPService(t, func(int, recorded) reply {
			return reply{status: http.StatusTemporaryRedirect, headers: map[string]string{"location": elsewhere.url + "/graphql"}}
		})
		callers := &http.Client{}
		_, err := admin(t, service.url, identity.WithAdminProtocol(protocol), identity.WithAdminRetry(identity.NoRetry), identity.WithAdminHTTPClient(callers)).AdminMeta(ctx, nil)
		var apiErr *identity.APIError
		if !errors.As(err, &apiErr) {
			t.Errorf("%s: a redirect answered %T %v, want an *APIError", protocol, err, err)
		}
		if callers.CheckRedirect != nil {
			t.Errorf("%s: the caller's http.Client was changed", protocol)
		}
	}
	if n := len(elsewhere.log()); n != 0 {
		t.Errorf("the redirect was followed with the caller's http.Client: %d requests reached the other address", n)
	}
}
