package sdk_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	identity "github.com/identity-interface/identity-go/v2"
)

// usersService answers users with `total` users, page by page, as the service does.
func usersService(t *testing.T, total int) *httpService {
	return newHTTPService(t, func(_ int, r recorded) reply {
		pagination, _ := r.Body["pagination"].(map[string]any)
		limit, page := int(pagination["limit"].(float64)), int(pagination["page"].(float64))
		offset := (page - 1) * limit
		var users []string
		for i := offset; i < min(offset+limit, total); i++ {
			users = append(users, fmt.Sprintf(`{"id":"u%d","email_verified":false,"signup_methods":"x","phone_number_verified":false,"roles":[],"created_at":1,"updated_at":1}`, i))
		}
		return reply{body: fmt.Sprintf(`{"pagination":{"limit":%d,"page":%d,"offset":%d,"total":%d},"users":[%s]}`, limit, page, offset, total, strings.Join(users, ","))}
	})
}

func TestIteratorsWalkEveryPageOnce(t *testing.T) {
	service := usersService(t, 250)
	client := admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolREST))
	seen := map[string]bool{}
	for user, err := range client.AllUsers(ctx, &identity.UsersInput{Query: identity.String("a")}) {
		if err != nil {
			t.Fatal(err)
		}
		if seen[user.ID] {
			t.Fatalf("%s twice", user.ID)
		}
		seen[user.ID] = true
	}
	if len(seen) != 250 {
		t.Fatalf("saw %d users, want 250", len(seen))
	}
	var pages []string
	for _, r := range service.log() {
		pages = append(pages, jsonOf(t, r.Body))
	}
	want := []string{
		`{"pagination":{"limit":100,"page":1},"query":"a"}`,
		`{"pagination":{"limit":100,"page":2},"query":"a"}`,
		`{"pagination":{"limit":100,"page":3},"query":"a"}`,
	}
	if jsonOf(t, pages) != jsonOf(t, want) {
		t.Fatalf("requests %v, want %v", pages, want)
	}
}

func TestIteratorsStartAtTheInputsPageAndStopWhenTheLoopDoes(t *testing.T) {
	service := usersService(t, 250)
	client := admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolREST))
	count := 0
	for user, err := range client.AllUsers(ctx, &identity.UsersInput{Pagination: &identity.PaginationInput{Limit: identity.Int64(20), Page: identity.Int64(3)}}) {
		if err != nil {
			t.Fatal(err)
		}
		if count == 0 && user.ID != "u40" {
			t.Fatalf("first item %s, want u40", user.ID)
		}
		count++
		if count == 25 {
			break
		}
	}
	if n := len(service.log()); n != 2 {
		t.Fatalf("breaking out after 25 items of pages of 20 fetched %d pages", n)
	}
	empty := usersService(t, 0)
	for range admin(t, empty.url, identity.WithAdminProtocol(identity.ProtocolREST)).AllUsers(ctx, nil) {
		t.Fatal("an empty list yields nothing")
	}
}

func TestAFailureEndsTheIteration(t *testing.T) {
	service := newHTTPService(t, func(n int, _ recorded) reply {
		if n == 1 {
			return reply{body: `{"pagination":{"limit":1,"page":1,"offset":0,"total":5},"users":[{"id":"u0"}]}`}
		}
		return reply{status: 403, body: `{"code":"PERMISSION_DENIED","message":"no more"}`}
	})
	var ids []string
	var failures []error
	for user, err := range admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolREST)).AllUsers(ctx, nil) {
		if err != nil {
			failures = append(failures, err)
			if user != nil {
				t.Fatal("a failure comes with a nil item")
			}
			continue
		}
		ids = append(ids, user.ID)
	}
	if len(ids) != 1 || len(failures) != 1 || !errors.Is(failures[0], identity.ErrPermissionDenied) {
		t.Fatalf("items %v, failures %v", ids, failures)
	}
	refused := admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolREST), identity.WithAdminServerVersion("2.3.0"))
	for _, err := range refused.AllOrganizations(ctx, nil) {
		wantError(t, err, identity.CodeFailedPrecondition, "Organizations not available over rest; use graphql (needs server 2.4.0 or later on rest; the server is 2.3.0)")
	}
}

func TestTokenIteratorsFollowTheContinuationToken(t *testing.T) {
	service := newHTTPService(t, func(n int, r recorded) reply {
		token, _ := r.Body["continuation_token"].(string)
		switch token {
		case "":
			return reply{body: `{"tuples":[{"user":"a","relation":"r","object":"o"}],"continuation_token":"t1"}`}
		case "t1":
			return reply{body: `{"tuples":[{"user":"b","relation":"r","object":"o"}],"continuation_token":"t2"}`}
		}
		// A token handed out twice ends the list instead of looping.
		return reply{body: `{"tuples":[{"user":"c","relation":"r","object":"o"}],"continuation_token":"t1"}`}
	})
	var users []string
	for tuple, err := range admin(t, service.url, identity.WithAdminProtocol(identity.ProtocolREST)).AllFGAReadTuples(ctx, &identity.FGAReadTuplesInput{Object: identity.String("o")}) {
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, tuple.User)
	}
	if strings.Join(users, ",") != "a,b,c" || len(service.log()) != 3 {
		t.Fatalf("users %v after %d requests", users, len(service.log()))
	}
	if body := jsonOf(t, service.log()[1].Body); body != `{"continuation_token":"t1","object":"o"}` {
		t.Fatalf("second request %s", body)
	}
}
