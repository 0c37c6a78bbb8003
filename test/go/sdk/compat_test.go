package sdk_test

import (
	"encoding/json"
	"strings"
	"testing"

	identity "github.com/identity-interface/identity-go/v2"
	"google.golang.org/protobuf/reflect/protoreflect"
)

const futureUser = `{"id":"u","email_verified":true,"signup_methods":"basic","phone_number_verified":false,"roles":[],"created_at":1,"updated_at":2,"loyalty":{"tier":"gold"},"badges":[1,2]}`

func TestAnswersKeepTheFieldsTheSDKDoesNotKnow(t *testing.T) {
	for _, protocol := range []identity.Protocol{identity.ProtocolREST, identity.ProtocolGraphQL} {
		body := futureUser
		if protocol == identity.ProtocolGraphQL {
			body = graphqlData("user", futureUser)
		}
		service := newHTTPService(t, ok(body))
		user, err := admin(t, service.url, identity.WithAdminProtocol(protocol)).User(ctx, &identity.UserInput{ID: identity.String("u")})
		if err != nil {
			t.Fatal(err)
		}
		if len(user.ExtraFields) != 2 || string(user.ExtraFields["loyalty"]) != `{"tier":"gold"}` || string(user.ExtraFields["badges"]) != `[1,2]` {
			t.Fatalf("%s: extra fields %v", protocol, user.ExtraFields)
		}
		if user.RawJSON() != futureUser {
			t.Fatalf("%s: raw JSON %s", protocol, user.RawJSON())
		}
		// The flat shape stays the SDK's own.
		if strings.Contains(jsonOf(t, user), "loyalty") {
			t.Fatalf("%s: %s", protocol, jsonOf(t, user))
		}
	}
}

func TestNestedAnswersKeepTheirUnknownFieldsToo(t *testing.T) {
	nested := strings.Replace(futureUser, `"id":"u"`, `"id":"u1"`, 1)
	service := newHTTPService(t, ok(`{"pagination":{"limit":10,"page":1,"offset":0,"total":1,"cursor":"c"},"users":[`+nested+`],"took_ms":3}`))
	page, err := admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolREST)).Users(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(page.ExtraFields["took_ms"]) != "3" || string(page.Pagination.ExtraFields["cursor"]) != `"c"` || string(page.Users[0].ExtraFields["loyalty"]) != `{"tier":"gold"}` {
		t.Fatalf("extra fields %v %v %v", page.ExtraFields, page.Pagination.ExtraFields, page.Users[0].ExtraFields)
	}
	// The answer of the call as received; a struct within it, its JSON encoding.
	if !strings.Contains(page.RawJSON(), nested) || page.Users[0].RawJSON() != jsonOf(t, page.Users[0]) || page.Pagination.Total != 1 {
		t.Fatalf("raw JSON %s, nested %s", page.RawJSON(), page.Users[0].RawJSON())
	}
}

func TestAFieldOfAnotherTypeIsKeptRawWithAWarning(t *testing.T) {
	logger, buffer := jsonLogger()
	// created_at is now a string, roles a string: the answer still reads, those two kept raw.
	changed := `{"id":"u","email_verified":true,"signup_methods":"basic","phone_number_verified":false,"roles":"admin","created_at":"2026-01-01T00:00:00Z","updated_at":2}`
	service := newHTTPService(t, func(_ int, r recorded) reply {
		if r.Path == "/graphql" {
			// A write: kept raw alike.
			return reply{body: graphqlData("update_user", strings.Replace(changed, `"id":"u"`, `"id":5`, 1))}
		}
		return reply{body: changed}
	})
	client := admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolREST), identity.WithAdminLogger(logger))
	user, err := client.User(ctx, &identity.UserInput{ID: identity.String("u")})
	if err != nil {
		t.Fatalf("a field of another type fails the call: %v", err)
	}
	if user.CreatedAt != 0 || user.Roles == nil || len(user.Roles) != 0 || user.UpdatedAt != 2 || user.ID != "u" {
		t.Fatalf("user %+v", user)
	}
	if string(user.ExtraFields["created_at"]) != `"2026-01-01T00:00:00Z"` || string(user.ExtraFields["roles"]) != `"admin"` {
		t.Fatalf("extra fields %v", user.ExtraFields)
	}
	var warnings []map[string]any
	for _, record := range buffer.records(t) {
		if record["level"] == "WARN" && record["field"] != nil {
			warnings = append(warnings, record)
		}
	}
	if len(warnings) != 2 || warnings[0]["field"] != "created_at" || warnings[0]["want"] != "integer" || warnings[0]["got"] != "string" || warnings[1]["field"] != "roles" || warnings[1]["operation"] != "user" {
		t.Fatalf("warnings %v", warnings)
	}

	updated, err := admin(t, service.url, identity.WithAdminLogger(logger)).UpdateUser(ctx, &identity.UpdateUserInput{ID: "u"})
	if err != nil {
		t.Fatalf("a write whose answer has a field of another type: %v", err)
	}
	if updated.ID != "" || string(updated.ExtraFields["id"]) != "5" {
		t.Fatalf("update %+v", updated)
	}
}

func TestAnswersOverGRPCHaveTheirJSONAndUnknownEnumNumbers(t *testing.T) {
	service := newGRPCService(t, func(_ int, call grpcCall) grpcReply {
		issuer := message(t, "identity.v1.TrustedIssuer")
		issuer.Set(field(issuer, "id"), protoString("t"))
		issuer.Set(field(issuer, "key_source_type"), protoreflect.ValueOfEnum(7)) // a value added to the service since
		return grpcReply{message: issuer}
	})
	client := grpcAdmin(t, service.endpoint, identity.WithAdminServerVersion("2.4.0"))
	issuer, err := client.UpdateTrustedIssuer(ctx, &identity.UpdateTrustedIssuerInput{ID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if issuer.KeySourceType != "UNKNOWN_7" || issuer.IssuerType != "" {
		t.Fatalf("enums %q %q", issuer.KeySourceType, issuer.IssuerType)
	}
	var decoded map[string]any
	if err := json.Unmarshal([]byte(issuer.RawJSON()), &decoded); err != nil || decoded["id"] != "t" || decoded["key_source_type"] != "UNKNOWN_7" || issuer.ExtraFields != nil {
		t.Fatalf("raw JSON over gRPC %s (%v)", issuer.RawJSON(), err)
	}
}

func TestJSONSetSendsAFieldTheSDKDoesNotKnow(t *testing.T) {
	service := newHTTPService(t, func(_ int, r recorded) reply {
		switch r.Path {
		case "/graphql":
			return reply{body: graphqlData("users", `{"pagination":{"limit":10,"page":1,"offset":0,"total":0},"users":[]}`)}
		case "/v1/meta":
			return reply{body: `{"version":"2.4.0","client_id":"app"}`}
		}
		return reply{body: `{"pagination":{"limit":10,"page":1,"offset":0,"total":0},"users":[]}`}
	})
	set := []identity.CallOption{identity.WithJSONSet("include_deleted", true), identity.WithJSONSet("filter", map[string]any{"plan": "pro", "seats": 3})}
	in := &identity.UsersInput{Query: identity.String("a")}
	if _, err := admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolREST)).Users(ctx, in, set...); err != nil {
		t.Fatal(err)
	}
	if _, err := admin(t, service.url).Users(ctx, in, set...); err != nil {
		t.Fatal(err)
	}
	user, err := identity.NewClient("app", service.url, identity.WithProtocol(identity.ProtocolREST))
	if err != nil {
		t.Fatal(err)
	}
	defer user.Close()
	if _, err := user.Meta(ctx, nil, identity.WithJSONSet("locale", "fr"), identity.WithJSONSet("n", 12345678901234)); err != nil {
		t.Fatal(err)
	}
	log := service.log()
	if got := jsonOf(t, log[0].Body); got != `{"filter":{"plan":"pro","seats":3},"include_deleted":true,"query":"a"}` {
		t.Fatalf("REST body %s", got)
	}
	if got := jsonOf(t, log[1].Body["variables"]); got != `{"params":{"filter":{"plan":"pro","seats":3},"include_deleted":true,"query":"a"}}` {
		t.Fatalf("GraphQL variables %s", got)
	}
	if log[2].Method != "GET" || log[2].Query != "locale=fr&n=12345678901234" {
		t.Fatalf("REST query %s %s", log[2].Method, log[2].Query)
	}

	// gRPC cannot carry it: refused before anything is sent.
	grpcService := newGRPCService(t, func(int, grpcCall) grpcReply { return grpcReply{message: message(t, "identity.v1.UsersResponse")} })
	_, err = grpcAdmin(t, grpcService.endpoint).Users(ctx, in, identity.WithJSONSet("include_deleted", true))
	apiErr := wantError(t, err, identity.CodeInvalidArgument, `users: WithJSONSet("include_deleted") cannot be sent over grpc, whose messages carry only the fields this SDK knows; use graphql or rest`)
	if !apiErr.Refused || len(grpcService.log()) != 0 {
		t.Fatalf("refused %v, sent %d", apiErr.Refused, len(grpcService.log()))
	}
	_, err = admin(t, service.url).Users(ctx, in, identity.WithJSONSet("", 1))
	wantError(t, err, identity.CodeInvalidArgument, "users: WithJSONSet needs the name of a field")
	// Nor can a GraphQL document that takes no input carry it.
	sent := len(service.log())
	_, err = admin(t, service.url).AdminMeta(ctx, nil, identity.WithJSONSet("locale", "fr"))
	wantError(t, err, identity.CodeInvalidArgument, `admin_meta: WithJSONSet("locale") cannot be sent over graphql, whose document of admin_meta takes no input; use rest`)
	if len(service.log()) != sent {
		t.Fatal("a refused call was sent")
	}
}

func TestPageIteratorsWalkEveryAnswer(t *testing.T) {
	service := usersService(t, 250)
	client := admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolREST))
	var pages []int64
	users := 0
	var response identity.RawResponse
	for page, err := range client.UsersPages(ctx, &identity.UsersInput{Pagination: &identity.PaginationInput{Limit: identity.Int64(100)}}, identity.WithResponseInto(&response)) {
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, page.Pagination.Page)
		users += len(page.Users)
		if page.Pagination.Total != 250 || response.StatusCode != 200 || response.Attempts != 1 {
			t.Fatalf("page %+v, response %+v", page.Pagination, response)
		}
	}
	if jsonOf(t, pages) != "[1,2,3]" || users != 250 {
		t.Fatalf("pages %v, %d users", pages, users)
	}
	// The loop ends early when it breaks; a failure is yielded once, as an *APIError.
	for range client.UsersPages(ctx, nil) {
		break
	}
	if n := len(service.log()); n != 4 {
		t.Fatalf("%d requests", n)
	}
	failing := newHTTPService(t, func(int, recorded) reply {
		return reply{status: 403, body: `{"code":"PERMISSION_DENIED","message":"no"}`}
	})
	count := 0
	for page, err := range admin(t, failing.url, identity.WithAdminProtocol(identity.ProtocolREST)).UsersPages(ctx, nil) {
		count++
		if page != nil {
			t.Fatal("a page with the failure")
		}
		wantError(t, err, identity.CodePermissionDenied, "no")
	}
	if count != 1 {
		t.Fatalf("%d elements", count)
	}
}
