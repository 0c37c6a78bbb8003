// The bookstore's Go SDK against a running bookstore (BOOKSTORE_URL, BOOKSTORE_GRPC, BOOKSTORE_KEY).
package smoke

import (
	"context"
	"errors"
	"os"
	"testing"

	bookstore "example.com/bookstore-go"
)

func TestBooksOverEveryProtocol(t *testing.T) {
	ctx := context.Background()
	for _, protocol := range []bookstore.Protocol{bookstore.ProtocolGraphQL, bookstore.ProtocolREST, bookstore.ProtocolGRPC} {
		store, err := bookstore.NewClient(os.Getenv("BOOKSTORE_URL"), bookstore.WithProtocol(protocol),
			bookstore.WithGRPCEndpoint(os.Getenv("BOOKSTORE_GRPC")), bookstore.WithAPIKey(os.Getenv("BOOKSTORE_KEY")))
		if err != nil {
			t.Fatal(err)
		}
		added, err := store.AddBook(ctx, &bookstore.AddBookInput{Title: "Go on " + string(protocol), Author: &bookstore.Author{Name: "Rob"}, Genre: bookstore.GenreScience})
		if err != nil {
			t.Fatalf("%s: %v", protocol, err)
		}
		got, err := store.GetBook(ctx, &bookstore.GetBookInput{ID: added.ID})
		if err != nil || got.Title != added.Title || got.Author.Name != "Rob" {
			t.Fatalf("%s: got %+v, %v", protocol, got, err)
		}
		seen := 0
		for book, err := range store.AllBooks(ctx, &bookstore.ListBooksInput{}) {
			if err != nil {
				t.Fatalf("%s: %v", protocol, err)
			}
			if book.ID == added.ID {
				seen++
			}
		}
		if seen != 1 {
			t.Fatalf("%s: the iterator saw the added book %d times", protocol, seen)
		}
		_, err = store.GetBook(ctx, &bookstore.GetBookInput{ID: "missing"})
		var apiErr *bookstore.APIError
		if !errors.As(err, &apiErr) || apiErr.Code != bookstore.CodeNotFound || !errors.Is(err, bookstore.ErrNotFound) {
			t.Fatalf("%s: want NOT_FOUND, got %v", protocol, err)
		}
		store.Close()
	}
}
