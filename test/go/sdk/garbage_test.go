package sdk_test

import (
	"errors"
	"testing"

	identity "github.com/identity-interface/identity-go/v2"
	"google.golang.org/grpc/metadata"
)

// Whatever a server answers, a call returns an answer or an *APIError; it never panics.
func TestUnexpectedAnswersAreErrorsNotPanics(t *testing.T) {
	bodies := []string{
		``, `null`, `[]`, `"text"`, `5`, `{"roles":5}`, `{"roles":[1,{}]}`, `{"app_data":[1]}`, `{"app_data":"x"}`, `{"created_at":"soon"}`,
		`{"created_at":1.5}`, `{"email":{}}`, `{`, `{"data":{"user":{"roles":null}}}`, `{"errors":"boom"}`, `{"errors":[null]}`, `{"errors":[{"message":5}]}`,
		`{"data":{"user":[]}}`, `{"data":[],"errors":[]}`, "\x00\xff",
	}
	for _, protocol := range []identity.Protocol{identity.ProtocolGraphQL, identity.ProtocolREST} {
		for _, status := range []int{200, 400, 404, 429, 500, 503} {
			for _, body := range bodies {
				service := newHTTPService(t, func(int, recorded) reply { return reply{status: status, body: body} })
				user, err := admin(t, service.url, identity.WithAdminProtocol(protocol), identity.WithAdminRetry(identity.NoRetry)).User(ctx, nil)
				var apiErr *identity.APIError
				if err != nil && !errors.As(err, &apiErr) {
					t.Errorf("%s %d %q: %T %v", protocol, status, body, err, err)
				}
				if err == nil && (user == nil || user.Roles == nil) {
					t.Errorf("%s %d %q: an answer without the flat shape: %+v", protocol, status, body, user)
				}
			}
		}
	}
	for _, response := range [][]byte{{0xff}, {0x0a, 0x05, 'a'}, {0x08, 0x01}, []byte("not protobuf at all")} {
		service := newGRPCService(t, func(int, grpcCall) grpcReply {
			return grpcReply{raw: response, trailer: metadata.Pairs("x-error-code", "BOGUS")}
		})
		_, err := grpcAdmin(t, service.endpoint, identity.WithAdminRetry(identity.NoRetry)).User(ctx, nil)
		var apiErr *identity.APIError
		if err != nil && !errors.As(err, &apiErr) {
			t.Errorf("gRPC %x: %T %v", response, err, err)
		}
	}
}
