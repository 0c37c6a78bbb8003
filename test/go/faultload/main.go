// The Go SDK's share of the fault schedule's load (test/faults/schedule.ts): sign-ups and updates
// over REST, GraphQL and gRPC, spread over the replicas, until the deadline. One JSON line per call
// on stdout, its outcome included, for the schedule's checker. Argument: the settings as JSON.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	identity "github.com/identity-interface/identity-go/v2"
)

type settings struct {
	Replicas []struct {
		HTTP string `json:"http"`
		GRPC string `json:"grpc"`
	} `json:"replicas"`
	Secret   string  `json:"secret"`
	Password string  `json:"password"`
	Prefix   string  `json:"prefix"`
	Seconds  float64 `json:"seconds"`
}

var protocols = []identity.Protocol{identity.ProtocolREST, identity.ProtocolGraphQL, identity.ProtocolGRPC}

// outcome is a call's outcome as the checker reads it.
func outcome(err error) map[string]any {
	if err == nil {
		return map[string]any{"code": "OK"}
	}
	var apiErr *identity.APIError
	if !errors.As(err, &apiErr) {
		return map[string]any{"code": "NOT_AN_API_ERROR: " + err.Error()}
	}
	// The client's own UNAVAILABLE when nothing answered has no Retry-After to carry.
	answered := !strings.Contains(apiErr.Message, "no answer from the service")
	return map[string]any{"code": string(apiErr.Code), "answered": answered, "retry_after": apiErr.RetryAfter > 0, "protocol": string(apiErr.Protocol), "message": apiErr.Message}
}

func emit(line map[string]any, extra map[string]any) {
	for key, value := range extra {
		line[key] = value
	}
	text, _ := json.Marshal(line)
	fmt.Println(string(text))
}

func main() {
	var s settings
	if err := json.Unmarshal([]byte(os.Args[1]), &s); err != nil {
		fmt.Fprintln(os.Stderr, "faultload: the settings are not JSON:", err)
		os.Exit(2)
	}
	ctx := context.Background()
	deadline := time.Now().Add(time.Duration(s.Seconds * float64(time.Second)))
	var acknowledged []string
	for step := 0; time.Now().Before(deadline); step++ {
		replica := s.Replicas[step%len(s.Replicas)]
		protocol := protocols[step%len(protocols)]
		if step%3 != 2 || len(acknowledged) == 0 {
			email := fmt.Sprintf("%s-%d@faults.example.com", s.Prefix, step)
			for attempt := 0; attempt < 20; attempt++ {
				user, err := identity.NewClient("reference", replica.HTTP, identity.WithProtocol(protocol), identity.WithGRPCEndpoint(replica.GRPC), identity.WithRetry(identity.NoRetry), identity.WithTimeout(5*time.Second))
				if err != nil {
					panic(err)
				}
				_, err = user.Signup(ctx, &identity.SignupInput{Email: identity.String(email), Password: s.Password, ConfirmPassword: s.Password})
				user.Close()
				result := outcome(err)
				emit(result, map[string]any{"op": "signup", "email": email, "attempt": attempt})
				if code := result["code"]; code == "OK" || code == "ALREADY_EXISTS" {
					acknowledged = append(acknowledged, email)
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			continue
		}
		email := acknowledged[step%len(acknowledged)]
		nickname := fmt.Sprintf("%s-n%d", s.Prefix, step)
		admin, err := identity.NewAdminClient(replica.HTTP, s.Secret, identity.WithAdminProtocol(protocol), identity.WithAdminGRPCEndpoint(replica.GRPC), identity.WithAdminRetry(identity.NoRetry), identity.WithAdminTimeout(5*time.Second))
		if err != nil {
			panic(err)
		}
		page, err := admin.Users(ctx, &identity.UsersInput{Query: identity.String(email)})
		emit(outcome(err), map[string]any{"op": "read"})
		if err == nil && len(page.Users) == 1 {
			_, err = admin.UpdateUser(ctx, &identity.UpdateUserInput{ID: page.Users[0].ID, Nickname: identity.String(nickname)})
			emit(outcome(err), map[string]any{"op": "update", "email": email, "nickname": nickname})
		}
		admin.Close()
	}
}
