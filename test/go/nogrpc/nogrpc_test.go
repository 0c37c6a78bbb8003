//go:build identity_nogrpc

// Package nogrpc is the SDK built with gRPC left out (go test -tags identity_nogrpc): the clients
// call over GraphQL and REST as ever, and a client whose protocol is gRPC is refused when made.
package nogrpc

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	identity "github.com/identity-interface/identity-go/v2"
)

const metaJSON = `{"version":"2.4.0","client_id":"c","enabled_protocols":["graphql","rest","grpc"],"grpc_port":9091}`

func TestCallsOverRESTAndGraphQL(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/graphql" {
			io.WriteString(w, `{"data":{"admin_meta":`+metaJSON+`}}`)
			return
		}
		io.WriteString(w, metaJSON)
	}))
	defer server.Close()
	for _, protocol := range []identity.Protocol{identity.ProtocolREST, identity.ProtocolGraphQL} {
		admin, err := identity.NewAdminClient(server.URL, "s", identity.WithAdminProtocol(protocol))
		if err != nil {
			t.Fatal(err)
		}
		meta, err := admin.AdminMeta(context.Background(), nil)
		if err != nil || meta.Version != "2.4.0" {
			t.Fatalf("%s: %v, %v", protocol, meta, err)
		}
		admin.Close()
	}
}

func TestAClientOverGRPCIsRefusedNamingTheTag(t *testing.T) {
	_, err := identity.NewAdminClient("http://127.0.0.1:1", "s", identity.WithAdminProtocol(identity.ProtocolGRPC))
	if err == nil || !strings.Contains(err.Error(), "gRPC is left out of this build (-tags identity_nogrpc)") {
		t.Fatalf("NewAdminClient over gRPC: %v", err)
	}
	var apiErr *identity.APIError
	if errors.As(err, &apiErr) {
		t.Fatalf("a configuration error, not a call's: %v", apiErr)
	}
}
