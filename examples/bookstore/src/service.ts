// The bookstore's service on its generated stubs: books in memory, writes for holders of the key,
// and the edits readers' tokens grant.
import { randomUUID } from "node:crypto";
import { createServer, ServiceError, type Implementation, type ServiceServer } from "../generated/server/index.js";
import type { Book, Edition, EditionInput } from "../generated/types.js";

/** An edition as the book keeps it: its one variant, the others null (the service writes its tag). */
const editionOf = (edition: EditionInput): Edition => ({
  print: edition.print ? { binding: edition.print.binding, pages: edition.print.pages ?? null } : null,
  ebook: edition.ebook ?? null,
  audio_minutes: edition.audio_minutes ?? null,
});

export function createBookstore(): Implementation {
  const books = new Map<string, Book>();
  const find = (id: string): Book => {
    const book = books.get(id);
    if (!book) throw new ServiceError("NOT_FOUND", "no book has this id");
    return book;
  };
  /** A change makes the book's next version: its etag counts them. */
  const changed = (book: Book): Book => {
    book.etag = `"${Number(book.etag.slice(1, -1)) + 1}"`;
    return book;
  };
  return {
    async addBook({ title, author, genre, year, published_on, isbn, pages, rating, loan_period, cover, copies_sold, stock, shelves, translators, printings, edition, other_editions }) {
      const book: Book = {
        id: randomUUID(),
        title,
        author: { name: author.name, born: author.born ?? null },
        genre,
        year: year ?? null,
        in_stock: true,
        added_at: new Date().toISOString(),
        published_on: published_on ?? null,
        isbn: isbn ?? null,
        pages: pages ?? null,
        rating: rating ?? null,
        loan_period: loan_period ?? null,
        cover: cover ?? null,
        labels: {},
        copies_sold: copies_sold ?? null,
        stock: stock ?? {},
        shelves: shelves ?? {},
        translators: Object.fromEntries(Object.entries(translators ?? {}).map(([language, who]) => [language, { name: who.name, born: who.born ?? null }])),
        printings: printings ?? {},
        edition: edition ? editionOf(edition) : null,
        other_editions: (other_editions ?? []).map(editionOf),
        etag: '"1"',
      };
      books.set(book.id, book);
      return book;
    },
    async getBook({ id }) {
      return find(id);
    },
    async updateBook({ id, in_stock, if_match }) {
      const book = find(id);
      if (if_match != null && if_match !== book.etag) throw new ServiceError("FAILED_PRECONDITION", `the book's etag is ${book.etag} now, not ${if_match}`);
      book.in_stock = in_stock;
      return changed(book);
    },
    async editBook({ id, title, rating, labels }) {
      const book = find(id);
      if (title != null) book.title = title;
      if (rating != null) book.rating = rating;
      if (labels != null) book.labels = { ...book.labels, ...labels };
      return changed(book);
    },
    async removeBook({ id }) {
      find(id);
      return { removed: books.delete(id) };
    },
    async listBooks({ genre, page_size, page_token }) {
      // The cursor is the position of the next book: books are kept in the order they were added.
      const all = [...books.values()].filter((book) => !genre || book.genre === genre);
      // The cursor format (a position) is checked before the call; one past the end is an empty page.
      const start = page_token ? Number(page_token) : 0;
      // The manifest's default (3) is applied before the call: page_size is never missing here.
      const end = start + page_size!;
      return { books: all.slice(start, end), next_page_token: end < all.length ? String(end) : null };
    },
    async searchBooks({ words, genres }) {
      const wanted = words.toLowerCase().split(/\s+/);
      return {
        books: [...books.values()].filter((book) => wanted.every((word) => book.title.toLowerCase().includes(word)) && (!genres?.length || genres.includes(book.genre))),
      };
    },
    async clearLabels({ id }) {
      changed(find(id)).labels = {};
      return {};
    },
  };
}

/** Readers' bearer tokens the store knows, each with the scopes it grants (books:write, labels:clear). */
export type ReaderTokens = Readonly<Record<string, readonly string[]>>;

/**
 * The bookstore on free ports (0) or the given ones; `apiKey` is the one key that may write, and
 * `readers` the readers' tokens: the verifier of the reader scheme answers each with its scopes,
 * which the stubs hold to the scopes an operation asks for.
 */
export function startBookstore(apiKey: string, ports: { port?: number; grpcPort?: number } = {}, readers: ReaderTokens = {}): ServiceServer {
  return createServer(createBookstore(), {
    port: ports.port ?? 0,
    grpcPort: ports.grpcPort ?? 0,
    verifyApiKey: async (key) => (key === apiKey ? { keyId: "store-owner" } : null),
    verifyUserToken: async (token) => {
      const scopes = Object.hasOwn(readers, token) ? readers[token] : undefined;
      return scopes ? { userId: `reader-${Object.keys(readers).indexOf(token) + 1}`, roles: [], scopes } : null;
    },
  });
}
