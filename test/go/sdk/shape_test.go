package sdk_test

import (
	"encoding/json"
	"testing"

	identity "github.com/identity-interface/identity-go/v2"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

func TestGraphQLRequestsCarryTheDocumentAndTheGivenFieldsOnly(t *testing.T) {
	service := newHTTPService(t, ok(graphqlData("add_webhook", `{"id":"w","event_name":"e","endpoint":"https://x","enabled":false,"created_at":1,"updated_at":2}`)))
	client := admin(t, service.url, identity.WithAdminExtraHeaders(map[string]string{"X-Team": "a", "X-Trace": "1"}))
	webhook, err := client.AddWebhook(ctx, &identity.AddWebhookInput{EventName: "e", Endpoint: "https://x", Enabled: false}, identity.WithHeader("x-team", "b"))
	if err != nil {
		t.Fatal(err)
	}
	r := service.log()[0]
	if r.Method != "POST" || r.Path != "/graphql" || r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("request %s %s %s", r.Method, r.Path, r.Header.Get("Content-Type"))
	}
	if r.Header.Get("x-service-admin-secret") != secret || r.Header.Get("X-Team") != "b" || r.Header.Get("X-Trace") != "1" || len(r.Header.Values("X-Team")) != 1 {
		t.Fatalf("headers %v", r.Header)
	}
	// A required field is sent even at its zero value; nil and empty ones are not.
	if got := jsonOf(t, r.Body["variables"]); got != `{"params":{"enabled":false,"endpoint":"https://x","event_name":"e"}}` {
		t.Fatalf("variables %s", got)
	}
	var operation identity.OperationInfo
	for _, info := range identity.Operations() {
		if info.Name == "add_webhook" {
			operation = info
		}
	}
	if operation.Method != "AddWebhook" || operation.Client != "admin" || operation.Kind != "write" || len(operation.Protocols) != 3 {
		t.Fatalf("operation facts %+v", operation)
	}
	query, _ := r.Body["query"].(string)
	if !contains(query, "mutation add_webhook($params: ") || !contains(query, "add_webhook(params: $params) { id event_name") {
		t.Fatalf("document %q", query)
	}
	if webhook.Headers == nil || webhook.EventDescription != nil || webhook.CreatedAt != 1 {
		t.Fatalf("answer %+v", webhook)
	}
}

func TestAnswersHaveTheFlatShape(t *testing.T) {
	service := newHTTPService(t, ok(`{"id":"u","email":null,"email_verified":true,"signup_methods":"basic","phone_number_verified":false,"created_at":1700000000000,"updated_at":2,"app_data":{"plan":"pro","seats":3,"tags":["a"]},"unknown":"kept"}`))
	user, err := admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolREST)).User(ctx, &identity.UserInput{ID: identity.String("u")})
	if err != nil {
		t.Fatal(err)
	}
	if user.Roles == nil || len(user.Roles) != 0 || user.Email != nil || user.CreatedAt != 1700000000000 {
		t.Fatalf("user %+v", user)
	}
	// A field this SDK does not know is kept aside, and left out of the flat shape.
	if len(user.ExtraFields) != 1 || string(user.ExtraFields["unknown"]) != `"kept"` {
		t.Fatalf("extra fields %v", user.ExtraFields)
	}
	got := jsonOf(t, user)
	want := `{"id":"u","email":null,"email_verified":true,"signup_methods":"basic","given_name":null,"family_name":null,"middle_name":null,"nickname":null,"preferred_username":null,"gender":null,"birthdate":null,"phone_number":null,"phone_number_verified":false,"picture":null,"roles":[],"created_at":1700000000000,"updated_at":2,"revoked_timestamp":null,"is_multi_factor_auth_enabled":null,"app_data":{"plan":"pro","seats":3,"tags":["a"]}}`
	if got != want {
		t.Fatalf("answer as JSON\n got %s\nwant %s", got, want)
	}
}

func TestUserClientCallsAndTokenRoutes(t *testing.T) {
	service := newHTTPService(t, func(_ int, r recorded) reply {
		if r.Path == "/oauth/token" {
			return reply{body: `{"access_token":"at","token_type":"Bearer","expires_in":60}`}
		}
		return reply{body: `{"version":"2.4.0","client_id":"app"}`}
	})
	client, err := identity.NewClient("app", service.url, identity.WithProtocol(identity.ProtocolREST), identity.WithAccessToken("t1"))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if _, err := client.Meta(ctx, nil); err != nil {
		t.Fatal(err)
	}
	client.SetAccessToken("")
	if _, err := client.OauthToken(ctx, &identity.OauthTokenInput{GrantType: "client_credentials"}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.OauthToken(ctx, &identity.OauthTokenInput{GrantType: "client_credentials", ClientID: identity.String("other")}); err != nil {
		t.Fatal(err)
	}
	log := service.log()
	if log[0].Method != "GET" || log[0].Header.Get("Authorization") != "Bearer t1" || log[0].Body != nil {
		t.Fatalf("meta request %+v", log[0])
	}
	if log[1].Header.Get("Authorization") != "" || jsonOf(t, log[1].Body) != `{"client_id":"app","grant_type":"client_credentials"}` {
		t.Fatalf("token request %v %s", log[1].Header, jsonOf(t, log[1].Body))
	}
	if jsonOf(t, log[2].Body) != `{"client_id":"other","grant_type":"client_credentials"}` {
		t.Fatalf("token request naming its client %s", jsonOf(t, log[2].Body))
	}
}

// field is the descriptor of a field of m by name.
func field(m *dynamicpb.Message, name string) protoreflect.FieldDescriptor {
	return m.Descriptor().Fields().ByName(protoreflect.Name(name))
}

func TestGRPCMessagesConvertToAndFromTheFlatShape(t *testing.T) {
	service := newGRPCService(t, func(_ int, call grpcCall) grpcReply {
		issuer := message(t, "identity.v1.TrustedIssuer")
		issuer.Set(field(issuer, "id"), protoString("t"))
		issuer.Set(field(issuer, "key_source_type"), protoreflect.ValueOfEnum(2))
		issuer.Set(field(issuer, "issuer_type"), protoreflect.ValueOfEnum(99)) // a number this client does not know: UNKNOWN_99
		issuer.Set(field(issuer, "created_at"), protoreflect.ValueOfInt64(1<<40))
		subjects := issuer.Mutable(field(issuer, "allowed_subjects")).List()
		subjects.Append(protoString("s1"))
		return grpcReply{message: issuer}
	})
	client := grpcAdmin(t, service.endpoint, identity.WithAdminServerVersion("2.4.0"), identity.WithAdminExtraHeaders(map[string]string{"X-Team": "a"}))
	issuer, err := client.UpdateTrustedIssuer(ctx, &identity.UpdateTrustedIssuerInput{
		ID: "t", KeySourceType: identity.Ptr(identity.KeySourceTypeOIDCDiscovery), AllowedSubjects: []string{"a", "b"}, IsActive: identity.Bool(false),
	})
	if err != nil {
		t.Fatal(err)
	}
	call := service.log()[0]
	if call.Method != "/identity.v1.AdminService/UpdateTrustedIssuer" || call.Metadata.Get("x-service-admin-secret")[0] != secret || call.Metadata.Get("x-team")[0] != "a" {
		t.Fatalf("call %s %v", call.Method, call.Metadata)
	}
	request := message(t, "identity.v1.UpdateTrustedIssuerRequest")
	if err := proto.Unmarshal(call.Request, request); err != nil {
		t.Fatal(err)
	}
	if request.Get(field(request, "key_source_type")).Enum() != 2 || request.Get(field(request, "allowed_subjects")).List().Len() != 2 ||
		!request.Has(field(request, "is_active")) || request.Get(field(request, "is_active")).Bool() || request.Has(field(request, "name")) {
		t.Fatalf("request %v", request)
	}
	got := jsonOf(t, issuer)
	want := `{"id":"t","service_account_id":"","name":"","issuer_url":"","key_source_type":"oidc_discovery","jwks_url":null,"expected_aud":"","subject_claim":null,"allowed_subjects":["s1"],"issuer_type":"UNKNOWN_99","is_active":false,"created_at":1099511627776,"updated_at":0}`
	if got != want {
		t.Fatalf("answer\n got %s\nwant %s", got, want)
	}
}

func TestGRPCJSONFieldsAndMapsRoundTrip(t *testing.T) {
	var sent []byte
	service := newGRPCService(t, func(_ int, call grpcCall) grpcReply {
		sent = call.Request
		request := message(t, "identity.v1.UpdateUserRequest")
		if err := proto.Unmarshal(call.Request, request); err != nil {
			t.Error(err)
		}
		user := message(t, "identity.v1.User")
		user.Set(field(user, "id"), protoString("u"))
		// The answer's app_data is the request's, as the service would store it.
		if request.Has(field(request, "app_data")) {
			user.Set(field(user, "app_data"), request.Get(field(request, "app_data")))
		}
		return grpcReply{message: user}
	})
	client := grpcAdmin(t, service.endpoint)
	appData := map[string]any{"plan": "pro", "seats": 3, "ratio": 0.5, "on": true, "none": nil, "nested": map[string]any{"tags": []string{"a", "b"}}}
	user, err := client.UpdateUser(ctx, &identity.UpdateUserInput{ID: "u", AppData: appData})
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonOf(t, user.AppData); got != `{"nested":{"tags":["a","b"]},"none":null,"on":true,"plan":"pro","ratio":0.5,"seats":3}` {
		t.Fatalf("app_data %s", got)
	}
	if len(sent) == 0 {
		t.Fatal("nothing sent")
	}
	// An empty JSON object is a value ({}), unlike nil.
	user, err = client.UpdateUser(ctx, &identity.UpdateUserInput{ID: "u", AppData: map[string]any{}})
	if err != nil || user.AppData == nil || len(user.AppData) != 0 {
		t.Fatalf("empty app_data: %v %v", err, user.AppData)
	}
	user, err = client.UpdateUser(ctx, &identity.UpdateUserInput{ID: "u"})
	if err != nil || user.AppData != nil {
		t.Fatalf("no app_data: %v %v", err, user.AppData)
	}
	var decoded map[string]any
	_ = json.Unmarshal([]byte(jsonOf(t, user)), &decoded)
	if decoded["roles"] == nil || decoded["app_data"] != nil {
		t.Fatalf("flat shape over gRPC %s", jsonOf(t, user))
	}
}
