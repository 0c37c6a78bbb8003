// The bookstore's Go SDK against a running bookstore (BOOKSTORE_URL, BOOKSTORE_GRPC, BOOKSTORE_KEY,
// and readers' tokens: BOOKSTORE_EDITOR grants books:write, BOOKSTORE_BROWSER nothing).
package smoke

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	bookstore "example.com/bookstore-go"
)

var protocols = []bookstore.Protocol{bookstore.ProtocolGraphQL, bookstore.ProtocolREST, bookstore.ProtocolGRPC}

func storeOver(t *testing.T, protocol bookstore.Protocol) *bookstore.StoreClient {
	t.Helper()
	store, err := bookstore.NewClient(os.Getenv("BOOKSTORE_URL"), bookstore.WithProtocol(protocol),
		bookstore.WithGRPCEndpoint(os.Getenv("BOOKSTORE_GRPC")), bookstore.WithAPIKey(os.Getenv("BOOKSTORE_KEY")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// typedFields are the fields of the new types of a book, comparable with ==.
type typedFields struct {
	publishedOn bookstore.Date
	isbn        uint64
	pages       uint32
	rating      float32
	loanPeriod  time.Duration
	cover       string
	copiesSold  int64
}

func typedOf(book *bookstore.Book) typedFields {
	var out typedFields
	if book.PublishedOn != nil {
		out.publishedOn = *book.PublishedOn
	}
	if book.Isbn != nil {
		out.isbn = *book.Isbn
	}
	if book.Pages != nil {
		out.pages = *book.Pages
	}
	if book.Rating != nil {
		out.rating = *book.Rating
	}
	if book.LoanPeriod != nil {
		out.loanPeriod = *book.LoanPeriod
	}
	out.cover = string(book.Cover)
	if book.CopiesSold != nil {
		out.copiesSold = *book.CopiesSold
	}
	return out
}

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

// clientWith is a client of the credentials given ("": none of that kind).
func clientWith(t *testing.T, protocol bookstore.Protocol, key, token string) *bookstore.StoreClient {
	t.Helper()
	options := []bookstore.Option{bookstore.WithProtocol(protocol), bookstore.WithGRPCEndpoint(os.Getenv("BOOKSTORE_GRPC"))}
	if key != "" {
		options = append(options, bookstore.WithAPIKey(key))
	}
	if token != "" {
		options = append(options, bookstore.WithAccessToken(token))
	}
	store, err := bookstore.NewClient(os.Getenv("BOOKSTORE_URL"), options...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// edit_book takes the staff's key or a reader's token granting books:write: either alone lets the
// client in; a token without the scope is PERMISSION_DENIED, and a wrong token is refused even
// beside the right key.
func TestEditsWithAnyOneOfItsSchemes(t *testing.T) {
	ctx := context.Background()
	key, editor, browser := os.Getenv("BOOKSTORE_KEY"), os.Getenv("BOOKSTORE_EDITOR"), os.Getenv("BOOKSTORE_BROWSER")
	for _, protocol := range protocols {
		added, err := storeOver(t, protocol).AddBook(ctx, &bookstore.AddBookInput{Title: "Any one in Go", Author: &bookstore.Author{Name: "A"}, Genre: bookstore.GenrePoetry})
		if err != nil {
			t.Fatalf("%s: %v", protocol, err)
		}
		edited, err := clientWith(t, protocol, "", editor).EditBook(ctx, &bookstore.EditBookInput{ID: added.ID, Title: bookstore.String("Edited by a Go reader")})
		if err != nil || edited.Title != "Edited by a Go reader" {
			t.Fatalf("%s: the reader's token: %+v, %v", protocol, edited, err)
		}
		refusals := []struct {
			key, token string
			code       bookstore.ErrorCode
			message    string
		}{
			{"", browser, bookstore.CodePermissionDenied, "EditBook needs the scope books:write, which the bearer token does not grant"},
			{key, "not-a-reader-token", bookstore.CodeUnauthenticated, "the bearer token is not valid or has expired"},
			{"", "", bookstore.CodeUnauthenticated, "EditBook needs an API key in header x-bookstore-key or an access token (Authorization: Bearer <token>)"},
		}
		for _, refusal := range refusals {
			_, err := clientWith(t, protocol, refusal.key, refusal.token).EditBook(ctx, &bookstore.EditBookInput{ID: added.ID, Title: bookstore.String("Refused")})
			var apiErr *bookstore.APIError
			if !errors.As(err, &apiErr) || apiErr.Code != refusal.code || apiErr.Message != refusal.message {
				t.Fatalf("%s: want %s %q, got %v", protocol, refusal.code, refusal.message, err)
			}
		}
	}
}

func TestNewTypesOverEveryProtocol(t *testing.T) {
	ctx := context.Background()
	// Every byte value: its base64 has + and /, which URL-safe base64 would write otherwise.
	cover := make([]byte, 1024)
	for i := range cover {
		cover[i] = byte(i)
	}
	loan := 21*24*time.Hour + 250*time.Millisecond
	for _, protocol := range protocols {
		before := time.Now()
		added, err := storeOver(t, protocol).AddBook(ctx, &bookstore.AddBookInput{
			Title: "Typed on " + string(protocol), Author: &bookstore.Author{Name: "Knuth"}, Genre: bookstore.GenreScience,
			PublishedOn: &bookstore.Date{Year: 1968, Month: time.February, Day: 29}, Isbn: bookstore.Ptr(uint64(9780201896831)), Pages: bookstore.Ptr(uint32(672)),
			Rating: bookstore.Ptr(float32(4.3)), LoanPeriod: &loan, Cover: cover,
		})
		if err != nil {
			t.Fatalf("%s: %v", protocol, err)
		}
		want := typedFields{bookstore.Date{Year: 1968, Month: time.February, Day: 29}, 9780201896831, 672, 4.3, loan, string(cover), 0}
		if got := typedOf(added); got != want {
			t.Fatalf("%s: added %+v, want %+v", protocol, got, want)
		}
		// Set by the server: an instant of this call, in UTC (within a second either side, for the clocks' resolution).
		if added.AddedAt.Location() != time.UTC || added.AddedAt.Before(before.Add(-time.Second)) || added.AddedAt.After(time.Now().Add(time.Second)) {
			t.Fatalf("%s: added_at %v, called at %v", protocol, added.AddedAt, before)
		}
		// The same book, read back over every protocol: equal values, the same instant.
		for _, reader := range protocols {
			got, err := storeOver(t, reader).GetBook(ctx, &bookstore.GetBookInput{ID: added.ID})
			if err != nil {
				t.Fatalf("%s then %s: %v", protocol, reader, err)
			}
			if typedOf(got) != want || !got.AddedAt.Equal(added.AddedAt) || got.AddedAt.Location() != time.UTC {
				t.Fatalf("%s then %s: got %+v at %v, want %+v at %v", protocol, reader, typedOf(got), got.AddedAt, want, added.AddedAt)
			}
		}
	}
}

func TestNewTypesAtTheEdgesOfTheirRanges(t *testing.T) {
	ctx := context.Background()
	for _, protocol := range protocols {
		store := storeOver(t, protocol)
		// A nanosecond, signed: Go's durations hold what the wire does.
		loan := -time.Nanosecond
		added, err := store.AddBook(ctx, &bookstore.AddBookInput{
			Title: "Edges on " + string(protocol), Author: &bookstore.Author{Name: "Edge"}, Genre: bookstore.GenreEssays,
			PublishedOn: &bookstore.Date{Year: 1, Month: time.January, Day: 1}, Isbn: bookstore.Ptr(uint64(math.MaxUint64)), Pages: bookstore.Ptr(uint32(math.MaxUint32)),
			Rating: bookstore.Ptr(float32(0.1)), LoanPeriod: &loan, Cover: []byte{0xff}, CopiesSold: bookstore.Ptr(int64(math.MinInt64)),
		})
		if err != nil {
			t.Fatalf("%s: %v", protocol, err)
		}
		want := typedFields{bookstore.Date{Year: 1, Month: time.January, Day: 1}, math.MaxUint64, math.MaxUint32, 0.1, -time.Nanosecond, "\xff", math.MinInt64}
		got, err := store.GetBook(ctx, &bookstore.GetBookInput{ID: added.ID})
		if err != nil || typedOf(added) != want || typedOf(got) != want {
			t.Fatalf("%s: added %+v, read %+v (%v), want %+v", protocol, typedOf(added), typedOf(got), err, want)
		}
	}
}

func TestRefusesAValueTheWireCannotCarryBeforeSending(t *testing.T) {
	ctx := context.Background()
	for _, protocol := range protocols {
		store := storeOver(t, protocol)
		for message, input := range map[string]*bookstore.AddBookInput{
			"published_on: must be a date such as 2026-01-31": {PublishedOn: &bookstore.Date{Year: 1967, Month: time.February, Day: 29}},
			"rating: must be a number":                        {Rating: bookstore.Ptr(float32(math.NaN()))},
		} {
			input.Title, input.Author, input.Genre = "Never sent", &bookstore.Author{Name: "Nobody"}, bookstore.GenrePoetry
			_, err := store.AddBook(ctx, input)
			var apiErr *bookstore.APIError
			if !errors.As(err, &apiErr) || apiErr.Code != bookstore.CodeInvalidArgument || !apiErr.Refused || apiErr.Message != message {
				t.Fatalf("%s: want %q refused, got %v", protocol, message, err)
			}
		}
	}
	for book, err := range storeOver(t, bookstore.ProtocolREST).AllBooks(ctx, &bookstore.ListBooksInput{}) {
		if err != nil || book.Title == "Never sent" {
			t.Fatalf("a refused book was sent: %+v, %v", book, err)
		}
	}
}

// The JSON forms a service may send besides the ones the bookstore writes: an offset and nine
// fractional digits, URL-safe unpadded base64, a uint64 and an int64 as numbers; and a value not of its form,
// kept in ExtraFields.
func TestReadsEveryJSONFormOfTheNewTypes(t *testing.T) {
	var sent map[string]any
	answers := []string{
		`{"id":"b1","title":"T","author":{"name":"A"},"genre":"fiction","in_stock":true,"added_at":"2026-01-31T10:30:00.123456789+01:00",
		"published_on":"2026-01-31","isbn":18446744073709551615,"pages":7,"rating":4.300000190734863,"loan_period":"-1.5s","cover":"-_8","labels":{},"copies_sold":-42}`,
		`{"id":"b1","title":"T","author":{"name":"A"},"genre":"fiction","in_stock":true,"added_at":"2026-01-31T09:30:00Z","loan_period":"soon","labels":{}}`,
	}
	service := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		sent = nil
		_ = json.Unmarshal(body, &sent)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answers[0])
		answers = answers[1:]
	}))
	defer service.Close()
	store, err := bookstore.NewClient(service.URL, bookstore.WithProtocol(bookstore.ProtocolREST), bookstore.WithAPIKey("key"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	loan := 90*time.Second + 500*time.Millisecond
	book, err := store.AddBook(context.Background(), &bookstore.AddBookInput{
		Title: "T", Author: &bookstore.Author{Name: "A"}, Genre: bookstore.GenreFiction,
		Isbn: bookstore.Ptr(uint64(math.MaxUint64)), Rating: bookstore.Ptr(float32(4.3)), LoanPeriod: &loan, Cover: []byte{0xfb, 0xff},
		CopiesSold: bookstore.Ptr(int64(math.MaxInt64)),
	})
	if err != nil {
		t.Fatal(err)
	}
	// Sent in the forms of proto3's JSON mapping: a uint64 as a decimal string, seconds, standard base64.
	for name, want := range map[string]any{"isbn": "18446744073709551615", "rating": 4.3, "loan_period": "90.500s", "cover": "+/8=", "copies_sold": "9223372036854775807"} {
		if sent[name] != want {
			t.Fatalf("sent %s %#v, want %#v (%v)", name, sent[name], want, sent)
		}
	}
	want := typedFields{bookstore.Date{Year: 2026, Month: time.January, Day: 31}, math.MaxUint64, 7, 4.3, -1500 * time.Millisecond, "\xfb\xff", -42}
	if typedOf(book) != want || !book.AddedAt.Equal(time.Date(2026, 1, 31, 9, 30, 0, 123456789, time.UTC)) || book.AddedAt.Location() != time.UTC || len(book.ExtraFields) != 0 {
		t.Fatalf("read %+v at %v (extra %v), want %+v", typedOf(book), book.AddedAt, book.ExtraFields, want)
	}
	// A duration that is not one is kept as it came, and the field left unset.
	book, err = store.GetBook(context.Background(), &bookstore.GetBookInput{ID: "b1"})
	if err != nil || book.LoanPeriod != nil || string(book.ExtraFields["loan_period"]) != `"soon"` || !bytes.Contains([]byte(book.RawJSON()), []byte(`"soon"`)) {
		t.Fatalf("read %+v, %v", book, err)
	}
}

// A date field is a Date: a day of the calendar read from and written as an RFC 3339 full-date.
func TestDatesAreDaysOfTheCalendar(t *testing.T) {
	day, err := bookstore.ParseDate("1968-02-29")
	if err != nil || day != (bookstore.Date{Year: 1968, Month: time.February, Day: 29}) || day.String() != "1968-02-29" {
		t.Fatalf("ParseDate: %+v, %v", day, err)
	}
	for _, text := range []string{"1967-02-29", "29/02/1968", "1968-2-29", "", "1968-02-29T00:00:00Z"} {
		if _, err := bookstore.ParseDate(text); err == nil || !strings.Contains(err.Error(), "is not a date such as 2026-01-31") {
			t.Fatalf("ParseDate(%q): %v", text, err)
		}
	}
	// The day an instant falls on where it is, not in UTC.
	tokyo := time.FixedZone("JST", 9*3600)
	if got := bookstore.DateOf(time.Date(2026, 1, 31, 23, 30, 0, 0, time.UTC).In(tokyo)); got != (bookstore.Date{Year: 2026, Month: time.February, Day: 1}) {
		t.Fatalf("DateOf: %+v", got)
	}
	if got := day.In(tokyo); !got.Equal(time.Date(1968, 2, 29, 0, 0, 0, 0, tokyo)) {
		t.Fatalf("In: %v", got)
	}
	if data, err := json.Marshal(struct{ D bookstore.Date }{day}); err != nil || string(data) != `{"D":"1968-02-29"}` {
		t.Fatalf("json: %s, %v", data, err)
	}
	if _, err := json.Marshal(bookstore.Date{Year: 1967, Month: time.February, Day: 29}); err == nil {
		t.Fatal("a day that is not in the calendar was written")
	}
	if !(bookstore.Date{}).IsZero() || (bookstore.Date{}).IsValid() {
		t.Fatal("the zero Date is no date")
	}
}

// Over REST, IfMatch travels in the If-Match header, which the service reads it from alone.
func TestChangesABookOnlyWhileItsEtagIsTheOneGiven(t *testing.T) {
	ctx := context.Background()
	for _, protocol := range protocols {
		store := storeOver(t, protocol)
		added, err := store.AddBook(ctx, &bookstore.AddBookInput{Title: "Conditional on " + string(protocol), Author: &bookstore.Author{Name: "A"}, Genre: bookstore.GenrePoetry})
		if err != nil || added.Etag != `"1"` {
			t.Fatalf("%s: added %+v, %v", protocol, added, err)
		}
		_, err = store.UpdateBook(ctx, &bookstore.UpdateBookInput{ID: added.ID, InStock: false, IfMatch: bookstore.Ptr(`"7"`)})
		var apiErr *bookstore.APIError
		if !errors.As(err, &apiErr) || apiErr.Code != bookstore.CodeFailedPrecondition || apiErr.Message != `the book's etag is "1" now, not "7"` {
			t.Fatalf("%s: a stale etag gave %v", protocol, err)
		}
		updated, err := store.UpdateBook(ctx, &bookstore.UpdateBookInput{ID: added.ID, InStock: false, IfMatch: bookstore.Ptr(`"1"`)})
		if err != nil || updated.InStock || updated.Etag != `"2"` {
			t.Fatalf("%s: updated %+v, %v", protocol, updated, err)
		}
	}
}

// Maps of other values than strings: uint32 counts and enum names, on every protocol.
func TestCarriesMapsOfNumbersAndEnumValues(t *testing.T) {
	ctx := context.Background()
	for _, protocol := range protocols {
		store := storeOver(t, protocol)
		added, err := store.AddBook(ctx, &bookstore.AddBookInput{
			Title: "Mapped on " + string(protocol), Author: &bookstore.Author{Name: "A"}, Genre: bookstore.GenrePoetry,
			Stock: map[string]uint32{"main": math.MaxUint32, "annex": 0}, Shelves: map[string]bookstore.Genre{"B2": bookstore.GenreHistory},
			Translators: map[string]*bookstore.Author{"fr": {Name: "Jean Giono", Born: bookstore.Ptr(int32(1895))}},
			Printings:   map[string]bookstore.Date{"first": {Year: 1851, Month: time.October, Day: 18}},
		})
		if err != nil {
			t.Fatalf("%s: %v", protocol, err)
		}
		read, err := store.GetBook(ctx, &bookstore.GetBookInput{ID: added.ID})
		for _, book := range []*bookstore.Book{added, read} {
			if err != nil || len(book.Stock) != 2 || book.Stock["main"] != math.MaxUint32 || book.Stock["annex"] != 0 || len(book.Shelves) != 1 || book.Shelves["B2"] != bookstore.GenreHistory {
				t.Fatalf("%s: %+v %+v, %v", protocol, book.Stock, book.Shelves, err)
			}
			fr := book.Translators["fr"]
			if len(book.Translators) != 1 || fr == nil || fr.Name != "Jean Giono" || fr.Born == nil || *fr.Born != 1895 || book.Printings["first"] != (bookstore.Date{Year: 1851, Month: time.October, Day: 18}) {
				t.Fatalf("%s: translators %+v, printings %+v", protocol, book.Translators, book.Printings)
			}
		}
	}
}

// A union: exactly one variant set; two are refused on every protocol (before sending over gRPC).
func TestCarriesAUnionWithExactlyOneVariant(t *testing.T) {
	ctx := context.Background()
	for _, protocol := range protocols {
		store := storeOver(t, protocol)
		added, err := store.AddBook(ctx, &bookstore.AddBookInput{
			Title: "United on " + string(protocol), Author: &bookstore.Author{Name: "A"}, Genre: bookstore.GenrePoetry,
			Edition:       &bookstore.Edition{AudioMinutes: bookstore.Ptr(uint32(0))},
			OtherEditions: []*bookstore.Edition{{Ebook: &bookstore.Ebook{FileFormat: "epub"}}, {Print: &bookstore.PrintEdition{Binding: "paperback"}}},
		})
		if err != nil {
			t.Fatalf("%s: %v", protocol, err)
		}
		read, err := store.GetBook(ctx, &bookstore.GetBookInput{ID: added.ID})
		if err != nil || read.Edition == nil || read.Edition.AudioMinutes == nil || *read.Edition.AudioMinutes != 0 || read.Edition.Print != nil || read.Edition.Ebook != nil {
			t.Fatalf("%s: read %+v, %v", protocol, read, err)
		}
		// The tag names the variant on every protocol; REST bodies carry it both ways.
		if read.Edition.Kind() != "audio_minutes" || read.Edition.ExtraFields != nil {
			t.Fatalf("%s: kind %q, extra %v", protocol, read.Edition.Kind(), read.Edition.ExtraFields)
		}
		if len(read.OtherEditions) != 2 || read.OtherEditions[0].Kind() != "ebook" || read.OtherEditions[1].Kind() != "print" || read.OtherEditions[1].ExtraFields != nil {
			t.Fatalf("%s: other editions %+v", protocol, read.OtherEditions)
		}
		if protocol == bookstore.ProtocolREST && !strings.Contains(read.RawJSON(), `"edition":{"kind":"audio_minutes",`) {
			t.Fatalf("rest: the answer carries no tag: %s", read.RawJSON())
		}
		_, err = store.AddBook(ctx, &bookstore.AddBookInput{
			Title: "Never sent", Author: &bookstore.Author{Name: "A"}, Genre: bookstore.GenrePoetry,
			Edition: &bookstore.Edition{AudioMinutes: bookstore.Ptr(uint32(60)), Ebook: &bookstore.Ebook{FileFormat: "pdf"}},
		})
		var apiErr *bookstore.APIError
		if !errors.As(err, &apiErr) || apiErr.Code != bookstore.CodeInvalidArgument || apiErr.Message != "edition: must have exactly one of print, ebook, audio_minutes" {
			t.Fatalf("%s: two variants gave %v", protocol, err)
		}
	}
}
