// A second API in the suite: examples/bookstore (API-key auth, resource routes with path
// parameters, cursor pagination with a maximum of 10, an enum, a nested type, an operation gRPC does
// not carry). Its generated files are up to date; its TypeScript compiles on its own; its service,
// on its own stubs, answers the generated TypeScript client over all three protocols, and the
// Python and Go SDKs likewise, and its packing, in test/examples/bookstore-sdks.test.ts (a longer proof).
// Its MCP tools of API-key operations take the key: from BOOKSTORE_API_KEY (the standalone
// bookstore-mcp over stdio) or from the request's x-bookstore-key header (/mcp, and bookstore-mcp
// over HTTP); without it they answer UNAUTHENTICATED and write nothing. edit_book and clear_labels
// take the staff's key or a reader's bearer token with scopes: any one lets a caller in, over every
// protocol and SDK; a token without a scope is PERMISSION_DENIED naming it, and a wrong credential
// is refused even beside a right one.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiError, StoreClient } from "../../examples/bookstore/generated/client/index.js";
import { schema } from "../../examples/bookstore/generated/schema.js";
import { createServer } from "../../examples/bookstore/generated/server/index.js";
import { createBookstore, startBookstore } from "../../examples/bookstore/src/service.js";
import { runProcess } from "../../scripts/run-process.mjs";
import { startHttpMcpServer } from "../helpers/mcp-http.js";
import { REPO_ROOT } from "../helpers/project.js";

const EXAMPLE = join(REPO_ROOT, "examples", "bookstore");
const KEY = "bookstore-owner-key";
/** Readers' tokens: one that may edit books, one that may also clear labels, one that may do neither. */
const EDITOR = "reader-token-editor";
const CLEARER = "reader-token-clearer";
const BROWSER = "reader-token-browser";
const server = startBookstore(KEY, {}, { [EDITOR]: ["books:write"], [CLEARER]: ["books:write", "labels:clear"], [BROWSER]: [] });
let endpoints: { httpUrl: string; grpcEndpoint: string };
const workDir = mkdtempSync(join(tmpdir(), "apigen-bookstore-"));

beforeAll(async () => {
  endpoints = await server.listen();
});
afterAll(async () => {
  await server.close();
  rmSync(workDir, { recursive: true, force: true });
});

const client = (protocol: "graphql" | "rest" | "grpc", apiKey?: string, accessToken?: string) =>
  new StoreClient({ serviceUrl: endpoints.httpUrl, grpcEndpoint: endpoints.grpcEndpoint, protocol, ...(apiKey ? { apiKey } : {}), ...(accessToken ? { accessToken } : {}) });
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable("the call succeeded"),
    (error: unknown) => error as ApiError,
  );

describe("the bookstore example", () => {
  it("is generated from its manifest, and its TypeScript compiles on its own", async () => {
    const [check, tsc] = await Promise.all([
      runProcess(process.execPath, [join(REPO_ROOT, "bin", "apigen.js"), "generate", "--check", "--root", EXAMPLE]),
      runProcess(process.execPath, [join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", join(EXAMPLE, "tsconfig.json")]),
    ]);
    expect(check.code, check.output).toBe(0);
    expect(tsc.code, tsc.output).toBe(0);
  }, 60_000);

  it.each(["graphql", "rest", "grpc"] as const)("answers the TypeScript client over %s", async (protocol) => {
    const store = client(protocol, KEY);
    const added = await store.addBook({ title: `Moby Dick over ${protocol}`, author: { name: "Herman Melville", born: 1819 }, genre: "fiction", year: 1851 });
    expect(added).toMatchObject({ title: `Moby Dick over ${protocol}`, author: { name: "Herman Melville", born: 1819 }, genre: "fiction", in_stock: true });
    expect(await store.getBook({ id: added.id })).toEqual(added);
    expect(await store.updateBook({ id: added.id, in_stock: false })).toEqual({ ...added, in_stock: false, etag: `"2"` });
    for (let i = 0; i < 4; i++) await store.addBook({ title: `${protocol} poem ${i}`, author: { name: "Anon" }, genre: "poetry" });
    // Pages of 3 by default: the iterator follows next_page_token to the end.
    const poems = [];
    for await (const book of store.iterateListBooks({ genre: "poetry" })) if (book.title.startsWith(`${protocol} poem`)) poems.push(book.title);
    expect(poems).toEqual([0, 1, 2, 3].map((i) => `${protocol} poem ${i}`));
    expect((await failure(store.listBooks({ page_size: 11 }))).code).toBe("INVALID_ARGUMENT");
    expect((await failure(client(protocol).addBook({ title: "No key", author: { name: "A" }, genre: "history" }))).code).toBe("UNAUTHENTICATED");
    expect((await failure(client(protocol, "wrong").removeBook({ id: added.id }))).code).toBe("UNAUTHENTICATED");
    expect(await store.removeBook({ id: added.id })).toEqual({ removed: true });
    expect((await failure(store.getBook({ id: added.id }))).code).toBe("NOT_FOUND");
    if (protocol === "grpc") {
      const refused = await failure(store.searchBooks({ words: "moby" }));
      expect(refused).toMatchObject({ code: "FAILED_PRECONDITION", refused: true, message: "SearchBooks not available over grpc; use graphql or rest" });
    } else {
      expect((await store.searchBooks({ words: `${protocol} poem 3` })).books.map((b) => b.title)).toEqual([`${protocol} poem 3`]);
    }
    await store.close();
  });

  it.each(["graphql", "rest", "grpc"] as const)(
    "lets in any one of edit_book's schemes over %s: the staff's key, or a reader's token granting books:write; refuses a missing scope, and a wrong credential beside a right one",
    async (protocol) => {
      const staff = client(protocol, KEY);
      const book = await staff.addBook({ title: `Any one over ${protocol}`, author: { name: "A" }, genre: "poetry" });
      const edit = (apiKey: string | undefined, accessToken: string | undefined, title: string) => client(protocol, apiKey, accessToken).editBook({ id: book.id, title });
      // Each scheme alone, and both together.
      expect((await edit(undefined, EDITOR, "By a reader")).title).toBe("By a reader");
      expect((await edit(KEY, undefined, "By the staff")).title).toBe("By the staff");
      expect((await edit(KEY, EDITOR, "By both")).title).toBe("By both");
      // A token without the scope is known but may not: PERMISSION_DENIED naming the scope, never the token.
      const denied = await failure(edit(undefined, BROWSER, "Denied"));
      expect([denied.code, denied.message]).toEqual(["PERMISSION_DENIED", "EditBook needs the scope books:write, which the bearer token does not grant"]);
      // Beside the staff's key it changes nothing: the key lets the caller in.
      expect((await edit(KEY, BROWSER, "By the staff, with a browsing reader's token")).title).toBe("By the staff, with a browsing reader's token");
      // A wrong credential is refused, even beside a right one.
      const wrongToken = await failure(edit(KEY, "not-a-reader-token", "Wrong token"));
      expect([wrongToken.code, wrongToken.message]).toEqual(["UNAUTHENTICATED", "the bearer token is not valid or has expired"]);
      const wrongKey = await failure(edit("not-the-key", EDITOR, "Wrong key"));
      expect([wrongKey.code, wrongKey.message]).toEqual(["UNAUTHENTICATED", "the API key in header x-bookstore-key is not valid"]);
      // Nothing at all: every credential that would do is named.
      const none = await failure(edit(undefined, undefined, "Anonymous"));
      expect([none.code, none.message]).toEqual(["UNAUTHENTICATED", "EditBook needs an API key in header x-bookstore-key or an access token (Authorization: Bearer <token>)"]);
      for (const refused of [denied, wrongToken, wrongKey, none]) expect(refused.message).not.toMatch(/reader-token|not-the-key|not-a-reader/);
      expect((await client(protocol).getBook({ id: book.id })).title).toBe("By the staff, with a browsing reader's token");
      // A reader's token, whatever its scopes, is no key of the staff: add_book takes the key alone.
      expect((await failure(client(protocol, undefined, CLEARER).addBook({ title: "By a reader", author: { name: "A" }, genre: "poetry" }))).code).toBe("UNAUTHENTICATED");
      if (protocol !== "graphql") {
        // clear_labels asks for two scopes: a token with one of them is told the other.
        await staff.editBook({ id: book.id, labels: { shelf: "C3" } });
        const partly = await failure(client(protocol, undefined, EDITOR).clearLabels({ id: book.id }));
        expect([partly.code, partly.message]).toEqual(["PERMISSION_DENIED", "ClearLabels needs the scope labels:clear, which the bearer token does not grant"]);
        expect((await client(protocol).getBook({ id: book.id })).labels).toEqual({ shelf: "C3" });
        expect(await client(protocol, undefined, CLEARER).clearLabels({ id: book.id })).toEqual({});
        expect((await client(protocol).getBook({ id: book.id })).labels).toEqual({});
      }
      await staff.close();
    },
  );

  it("states edit_book's schemes and scopes in every contract", () => {
    const generated = (path: string) => readFileSync(join(EXAMPLE, path), "utf8");
    const openapi = generated("generated/openapi/openapi.yaml");
    expect(openapi).toMatch(/operationId: edit_book\n(?:.*\n)*?\s+security:\n\s+- staffKey: \[\]\n\s+- readerToken:\n\s+- "books:write"\n/);
    expect(openapi).toMatch(/operationId: clear_labels\n(?:.*\n)*?\s+- readerToken:\n\s+- "books:write"\n\s+- "labels:clear"\n/);
    const words = "Auth: any one of: a member of the store's staff (API key in header x-bookstore-key); a reader signed in to the store (bearer token), with the scope books:write.";
    expect(openapi).toContain(words);
    expect(generated("generated/graphql/schema.graphql")).toContain(`Change a book's title, rating or labels. ${words}`);
    expect(generated("proto/bookstore/v1/user_service.proto")).toContain(`// Change a book's title, rating or labels. ${words}`);
    expect(generated("generated/docs/books.md")).toContain("Auth `staff_key` or `reader`: any one of:");
    // One scheme, one sentence as before: the reads are public and say nothing more in GraphQL.
    expect(generated("generated/graphql/schema.graphql")).toMatch(/"""One book, by id\."""/);
  });

  it.each(["graphql", "rest", "grpc"] as const)("carries timestamps, dates, durations, bytes, float32 and unsigned integers over %s in their canonical JSON forms", async (protocol) => {
    const store = client(protocol, KEY);
    const before = Date.now();
    const added = await store.addBook({
      title: `Typed over ${protocol}`,
      author: { name: "Herman Melville" },
      genre: "fiction",
      published_on: "1851-10-18",
      isbn: "18446744073709551615",
      pages: 4294967295,
      rating: 4.25,
      loan_period: "1.5s",
      // URL-safe base64 without padding is read; the answer is standard base64.
      cover: "iVBORw0KGgo_-w",
      // api.int64_json: string: an int64 past 2^53 travels exactly, as a decimal string.
      copies_sold: "-9223372036854775808",
      // Maps of other values than strings: uint32 counts and enum names.
      stock: { main: 4294967295, annex: 0 },
      shelves: { B2: "history", "window display": "poetry" },
      // ... and of types and dates.
      translators: { fr: { name: "Jean Giono", born: 1895 }, de: { name: "Richard Mummendey" } },
      printings: { first: "1851-10-18", second: "1851-11-14" },
      // A union: exactly one variant, named by its key.
      edition: { print: { binding: "hardcover", pages: 635 } },
      // ... and a list of them: each item names its variant too.
      other_editions: [{ ebook: { file_format: "epub" } }, { audio_minutes: 600 }],
    });
    expect(added).toMatchObject({
      // A tagged union's answer names its variant by its tag too, on every protocol.
      edition: { kind: "print", print: { binding: "hardcover", pages: 635 }, ebook: null, audio_minutes: null },
      other_editions: [
        { kind: "ebook", print: null, ebook: { file_format: "epub" }, audio_minutes: null },
        { kind: "audio_minutes", print: null, ebook: null, audio_minutes: 600 },
      ],
      stock: { main: 4294967295, annex: 0 },
      shelves: { B2: "history", "window display": "poetry" },
      translators: { fr: { name: "Jean Giono", born: 1895 }, de: { name: "Richard Mummendey", born: null } },
      printings: { first: "1851-10-18", second: "1851-11-14" },
      published_on: "1851-10-18",
      isbn: "18446744073709551615",
      pages: 4294967295,
      rating: 4.25,
      loan_period: "1.500s",
      cover: "iVBORw0KGgo/+w==",
      copies_sold: "-9223372036854775808",
    });
    expect(added.added_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3}|\.\d{6}|\.\d{9})?Z$/);
    expect(Date.parse(added.added_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(await store.getBook({ id: added.id })).toEqual(added);
    const count = async () => (await client("rest").searchBooks({ words: "refused" })).books.length;
    const refusals: [Record<string, unknown>, string][] = [
      [{ published_on: "1851-02-30" }, "published_on: must be a date such as 2026-01-31"],
      [{ isbn: "18446744073709551616" }, "isbn: must be an integer from 0 to 18446744073709551615"],
      [{ copies_sold: "9223372036854775808" }, "copies_sold: must be an integer from -9223372036854775808 to 9223372036854775807"],
      [{ copies_sold: "007" }, "copies_sold: must be an integer from -9223372036854775808 to 9223372036854775807"],
      [{ copies_sold: 1.5 }, "copies_sold: must be an integer from -9223372036854775808 to 9223372036854775807"],
      [{ stock: { main: -1 } }, "stock.main: must be between 0 and 4294967295"],
      [{ stock: { main: "4" } }, "stock.main: must be an integer"],
      [{ stock: ["main"] }, "stock: must be an object"],
      [{ shelves: { B2: "cooking" } }, "shelves.B2: must be one of fiction, history, science, poetry, essays"],
      [{ translators: { fr: { name: "" } } }, "translators.fr.name: must not be empty"],
      [{ translators: { fr: "Jean Giono" } }, "translators.fr: must be an object"],
      [{ printings: { first: "1851-02-30" } }, "printings.first: must be a date such as 2026-01-31"],
      [{ edition: { print: { binding: "paperback" }, audio_minutes: 600 } }, "edition: must have exactly one of print, ebook, audio_minutes"],
      [{ edition: {} }, "edition: must have exactly one of print, ebook, audio_minutes"],
      [{ edition: { ebook: {} } }, "edition.ebook.file_format: is required"],
      [{ other_editions: [{ audio_minutes: 1 }, { ebook: { file_format: "pdf" }, audio_minutes: 1 }] }, "other_editions[1]: must have exactly one of print, ebook, audio_minutes"],
      [{ pages: 0 }, "pages: must be 1 or more"],
      [{ pages: 4294967296 }, "pages: must be between 0 and 4294967295"],
      [{ rating: 5.5 }, "rating: must be between 0 and 5"],
      [{ loan_period: "two weeks" }, "loan_period: must be a duration in seconds such as 90s or 1.5s"],
      [{ cover: "not base64!" }, "cover: must be base64"],
      [{ cover: Buffer.alloc(65537).toString("base64") }, "cover: must be at most 65536 bytes"],
    ];
    for (const [fields, message] of refusals) {
      const refused = await failure(store.addBook({ title: "refused", author: { name: "A" }, genre: "poetry", ...fields } as never));
      expect([refused.code, refused.message], JSON.stringify(fields)).toEqual(["INVALID_ARGUMENT", message]);
    }
    expect(await count()).toBe(0);
    await store.close();
  });

  it.each(["graphql", "rest", "grpc"] as const)("counts an empty map as not given in an at-least-one-of rule over %s, as the OpenAPI document says", async (protocol) => {
    const store = client(protocol, KEY);
    const book = await store.addBook({ title: `Labelled over ${protocol}`, author: { name: "A" }, genre: "science" });
    const refused = await failure(store.editBook({ id: book.id, labels: {} }));
    expect([refused.code, refused.message]).toEqual(["INVALID_ARGUMENT", "give at least one of title, rating, labels"]);
    expect((await store.getBook({ id: book.id })).labels).toEqual({});
    expect((await store.editBook({ id: book.id, labels: { shelf: "B2" } })).labels).toEqual({ shelf: "B2" });
    await store.close();
  });

  it("applies a declared default before the call, and states it as the default keyword in the contracts", async () => {
    const store = client("rest");
    for (let i = 0; i < 4; i++) await client("rest", KEY).addBook({ title: `Default page ${i}`, author: { name: "A" }, genre: "history" });
    expect((await store.listBooks({ genre: "history" })).books).toHaveLength(3);
    const openapi = readFileSync(join(EXAMPLE, "generated", "openapi", "openapi.yaml"), "utf8");
    expect(openapi).toMatch(/- name: page_size\n(?:\s+[a-z]+:.*\n)*?\s+schema:\n(?:\s+.*\n)*?\s+default: 3\n/);
    expect(readFileSync(join(EXAMPLE, "generated", "graphql", "schema.graphql"), "utf8")).toMatch(/^ {2}page_size: Int = 3$/m);
    await store.close();
  });

  it("documents enum values and their deprecation in every contract", () => {
    const generated = (path: string) => readFileSync(join(EXAMPLE, path), "utf8");
    expect(generated("generated/graphql/schema.graphql")).toMatch(/"""Short non-fiction"""\n {2}essays @deprecated\(reason: "Filed under history or science now\."\)/);
    expect(generated("proto/bookstore/v1/types.proto")).toMatch(/\/\/ Short non-fiction Deprecated: Filed under history or science now\.\n {2}GENRE_ESSAYS = 5 \[deprecated = true\];/);
    expect(generated("generated/openapi/openapi.yaml")).toMatch(
      /x-enumDescriptions:\n\s+fiction: Novels and stories\n(?:.*\n)*?\s+essays: "?Short non-fiction Deprecated: Filed under history or science now\."?/,
    );
  });

  it("names its own HTTP port (api.http_port 8181) wherever an address is shown, and serves on it by default", async () => {
    expect(schema.httpPort).toBe(8181);
    const generated = (path: string) => readFileSync(join(EXAMPLE, "generated", path), "utf8");
    expect(generated("openapi/openapi.yaml")).toContain('default: "http://localhost:8181"');
    for (const path of ["openapi/openapi.yaml", "packages/sdk/README.md", "packages/server/README.md", "go/README.md", "python/README.md", "docs/README.md"]) {
      expect(generated(path), path).not.toContain("localhost:8080");
    }
    const onDefault = createServer(createBookstore(), { grpcPort: 0, verifyApiKey: async () => null });
    try {
      expect((await onDefault.listen()).httpUrl).toBe("http://127.0.0.1:8181");
    } finally {
      await onDefault.close();
    }
  });

  it("states the new types in each contract as its ecosystem expects", () => {
    const generated = (path: string) => readFileSync(join(EXAMPLE, path), "utf8");
    const proto = generated("proto/bookstore/v1/books.proto");
    expect(proto).toMatch(/^import "google\/protobuf\/timestamp\.proto";$/m);
    expect(proto).toMatch(/^ {2}google\.protobuf\.Timestamp added_at = \d+;$/m);
    expect(proto).toMatch(/^ {2}google\.protobuf\.Duration loan_period = \d+;$/m);
    expect(proto).toMatch(/^ {2}optional uint64 isbn = \d+;$/m);
    expect(proto).toMatch(/^ {2}optional float rating = \d+;$/m);
    expect(proto).toMatch(/^ {2}optional bytes cover = \d+;$/m);
    const sdl = generated("generated/graphql/schema.graphql");
    expect(sdl).toContain('scalar DateTime @specifiedBy(url: "https://scalars.graphql.org/andimarek/date-time")');
    expect(sdl).toMatch(/^ {2}added_at: DateTime!$/m);
    const openapi = generated("generated/openapi/openapi.yaml");
    expect(openapi).toMatch(/added_at:\n\s+description: When the store added it\.\n\s+type: string\n\s+format: date-time/);
    // 65536 bytes are at most 87384 base64 characters.
    expect(openapi).toMatch(/contentEncoding: base64\n\s+maxLength: 87384/);
  });

  it("has only the client its operations are on, named as its manifest says: a StoreClient, no admin client, in every SDK, the MCP server and the READMEs", async () => {
    const generated = (path: string) => readFileSync(join(EXAMPLE, "generated", path), "utf8");
    const sdk = await import("../../examples/bookstore/generated/client/index.js");
    expect(Object.keys(sdk).filter((name) => name.endsWith("Client"))).toEqual(["StoreClient"]);
    expect(readdirSync(join(EXAMPLE, "generated", "client"))).not.toContain("admin-client.ts");
    expect(generated("python/src/bookstore_sdk/__init__.py")).toMatch(/^from \._clients import AsyncStoreClient, StoreClient$/m);
    expect(generated("go/client.go")).toMatch(/^type StoreClient struct/m);
    expect(generated("mcp/main.ts")).toMatch(/^import \{ StoreClient \} from "\.\.\/client\/index\.js";$/m);
    for (const path of [
      "client/index.ts",
      "mcp/main.ts",
      "python/src/bookstore_sdk/__init__.py",
      "python/src/bookstore_sdk/_clients.py",
      "python/README.md",
      "go/client.go",
      "go/doc.go",
      "go/README.md",
      "packages/sdk/README.md",
    ]) {
      expect(generated(path), path).not.toMatch(/\b(AdminClient|UserClient)\b|WithAdmin|AdminOption/);
    }
    // The identity API, which has both, keeps both.
    expect(readFileSync(join(REPO_ROOT, "generated", "go", "client.go"), "utf8")).toMatch(/^type AdminClient struct/m);
  });

  it("writes an int64 as a decimal string on every protocol (api.int64_json: string), reads a number as input, and refuses one out of range without writing", async () => {
    const staff = { "content-type": "application/json", "x-bookstore-key": KEY };
    // Over REST: a JSON number in, the decimal string out.
    const created = await fetch(`${endpoints.httpUrl}/v1/books`, {
      method: "POST",
      headers: staff,
      body: JSON.stringify({ title: "Sold as a number", author: { name: "A" }, genre: "poetry", copies_sold: 42 }),
    });
    const book = (await created.json()) as { id: string; copies_sold: unknown };
    expect([created.status, book.copies_sold]).toEqual([201, "42"]);
    // Over GraphQL: an Int literal in, the decimal string out; the largest int64 exactly.
    const graphql = async (literal: string) => {
      const response = await fetch(`${endpoints.httpUrl}/graphql`, {
        method: "POST",
        headers: staff,
        body: JSON.stringify({ query: `mutation { add_book(params: { title: "Sold over GraphQL", author: { name: "A" }, genre: poetry, copies_sold: ${literal} }) { copies_sold } }` }),
      });
      return (await response.json()) as { data?: { add_book: { copies_sold: unknown } }; errors?: { message: string }[] };
    };
    expect((await graphql("7")).data?.add_book.copies_sold).toBe("7");
    expect((await graphql('"9223372036854775807"')).data?.add_book.copies_sold).toBe("9223372036854775807");
    const before = (await client("rest").listBooks({ page_size: 10 })).books.length;
    const outOfRange = await fetch(`${endpoints.httpUrl}/v1/books`, {
      method: "POST",
      headers: staff,
      body: JSON.stringify({ title: "Out of range", author: { name: "A" }, genre: "poetry", copies_sold: "9223372036854775808" }),
    });
    expect([outOfRange.status, ((await outOfRange.json()) as { message: string }).message]).toEqual([400, "copies_sold: must be an integer from -9223372036854775808 to 9223372036854775807"]);
    expect((await graphql('"-9223372036854775809"')).errors?.[0]?.message).toContain("copies_sold: must be an integer from -9223372036854775808 to 9223372036854775807");
    expect((await client("rest").listBooks({ page_size: 10 })).books.length).toBe(before);
    // gRPC carries the int64 itself; the client reads it as the same string.
    expect((await client("grpc").getBook({ id: book.id })).copies_sold).toBe("42");
    // The contracts state the form: a string with a pattern, a number as input too.
    const openapi = readFileSync(join(EXAMPLE, "generated", "openapi", "openapi.yaml"), "utf8");
    expect(openapi).toMatch(/copies_sold:\n\s+description: Copies sold, its former stores' included\.\n\s+type:\n\s+- string\n\s+- "null"\n\s+format: int64\n/);
    expect(openapi).toMatch(/copies_sold:\n\s+anyOf:\n\s+- type: string\n\s+format: int64\n\s+pattern: .*\n\s+- type: integer\n/);
    expect(readFileSync(join(EXAMPLE, "generated", "graphql", "schema.graphql"), "utf8")).toMatch(
      /"""\nAn integer from -9223372036854775808 to 9223372036854775807 written as a decimal string.*\n"""\nscalar Int64/,
    );
    expect(readFileSync(join(EXAMPLE, "proto", "bookstore", "v1", "types.proto"), "utf8")).toMatch(/^ {2}optional int64 copies_sold = \d+;$/m);
    expect(readFileSync(join(EXAMPLE, "generated", "graphql", "codegen.yml"), "utf8")).toContain('Int64: "string"');
  });

  it("checks each value of a map<V> on the server too, and states the value type in every contract", async () => {
    const post = async (fields: Record<string, unknown>) => {
      const response = await fetch(`${endpoints.httpUrl}/v1/books`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-bookstore-key": KEY },
        body: JSON.stringify({ title: "Mapped", author: { name: "A" }, genre: "poetry", ...fields }),
      });
      return [response.status, ((await response.json()) as { message?: string }).message ?? null];
    };
    const before = (await client("rest").searchBooks({ words: "Mapped" })).books.length;
    expect(await post({ stock: { main: 4294967296 } })).toEqual([400, "stock.main: must be between 0 and 4294967295"]);
    expect(await post({ shelves: { B2: "cooking" } })).toEqual([400, "shelves.B2: must be one of fiction, history, science, poetry, essays"]);
    expect(await post({ stock: { main: true } })).toEqual([400, "stock.main: must be an integer"]);
    expect((await client("rest").searchBooks({ words: "Mapped" })).books.length).toBe(before);
    const generated = (path: string) => readFileSync(join(EXAMPLE, path), "utf8");
    expect(generated("proto/bookstore/v1/types.proto")).toMatch(/^ {2}map<string, uint32> stock = \d+;\n(?:.*\n)*? {2}map<string, Genre> shelves = \d+;$/m);
    expect(generated("generated/graphql/schema.graphql")).toMatch(/^ {2}stock: UInt32Map!$/m);
    expect(generated("generated/graphql/codegen.yml")).toContain('UInt32Map: "Record<string, number>"');
    expect(generated("generated/openapi/openapi.yaml")).toMatch(/shelves:\n\s+description: .*\n\s+type: object\n\s+additionalProperties:\n\s+\$ref: "#\/components\/schemas\/Genre"/);
  });

  it("states a tagged union (one_of, discriminator) in every contract, and the server refuses two variants, none or a wrong tag on every protocol", async () => {
    const generated = (path: string) => readFileSync(join(EXAMPLE, path), "utf8");
    expect(generated("proto/bookstore/v1/types.proto")).toMatch(/^message Edition \{\n {2}oneof variant \{\n {4}PrintEdition print = 1;\n {4}Ebook ebook = 2;\n/m);
    expect(generated("generated/graphql/schema.graphql")).toMatch(/^input EditionInput @oneOf \{$/m);
    const openapi = generated("generated/openapi/openapi.yaml");
    expect(openapi).toMatch(
      / {4}Edition:\n(?:.*\n)*? {6}required:\n {6}- kind\n(?:.*\n)*? {6}oneOf:\n {6}- \$ref: "#\/components\/schemas\/Edition.print"\n(?:.*\n)*? {6}discriminator:\n {8}propertyName: kind\n/,
    );
    expect(openapi).toMatch(/ {4}Edition.ebook:\n(?:.*\n)*? {8}kind:\n {10}const: ebook\n {8}print:\n {10}type: "null"\n/);
    expect(generated("generated/graphql/schema.graphql")).toMatch(/^type Edition \{\n(?:.*\n)*? {2}kind: EditionKind!\n(?:.*\n)*?enum EditionKind \{\n {2}print\n {2}ebook\n/m);
    const post = async (edition: unknown) => {
      const response = await fetch(`${endpoints.httpUrl}/v1/books`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-bookstore-key": KEY },
        body: JSON.stringify({ title: "United", author: { name: "A" }, genre: "poetry", edition }),
      });
      return [response.status, ((await response.json()) as { message?: string }).message ?? null];
    };
    const both = "edition: must have exactly one of print, ebook, audio_minutes";
    expect(await post({ kind: "ebook", ebook: { file_format: "epub" }, audio_minutes: 60 })).toEqual([400, both]);
    expect(await post({ kind: "ebook", ebook: null, audio_minutes: null })).toEqual([400, both]);
    // A REST body carries the tag, which names the variant given.
    expect(await post({ ebook: { file_format: "epub" } })).toEqual([400, "edition.kind: is required"]);
    expect(await post({ kind: "print", ebook: { file_format: "epub" } })).toEqual([400, "edition.kind: must be ebook, the variant given"]);
    expect(await post({ kind: "vinyl", ebook: { file_format: "epub" } })).toEqual([400, "edition.kind: must be ebook, the variant given"]);
    const inList = await fetch(`${endpoints.httpUrl}/v1/books`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-bookstore-key": KEY },
      body: JSON.stringify({ title: "United", author: { name: "A" }, genre: "poetry", other_editions: [{ kind: "audio_minutes", audio_minutes: 1 }, { audio_minutes: 2 }] }),
    });
    expect([inList.status, ((await inList.json()) as { message: string }).message]).toEqual([400, "other_editions[1].kind: is required"]);
    // GraphQL's own @oneOf check refuses two keys before the call runs.
    const graphql = await fetch(`${endpoints.httpUrl}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-bookstore-key": KEY },
      body: JSON.stringify({ query: 'mutation { add_book(params: { title: "United", author: { name: "A" }, genre: poetry, edition: { audio_minutes: 1, ebook: { file_format: "pdf" } } }) { id } }' }),
    });
    expect(((await graphql.json()) as { errors?: { message: string }[] }).errors?.[0]?.message).toMatch(/EditionInput.*exactly one/);
    expect((await client("rest").searchBooks({ words: "United" })).books).toEqual([]);
    // One variant of each kind reads back as it went, over gRPC too.
    const audio = await client("grpc", KEY).addBook({ title: "United, heard", author: { name: "A" }, genre: "poetry", edition: { audio_minutes: 0 } });
    expect((await client("grpc").getBook({ id: audio.id })).edition).toEqual({ kind: "audio_minutes", print: null, ebook: null, audio_minutes: 0 });
    // The tag on the wire: REST's JSON answer, GraphQL's field.
    const rest = (await (await fetch(`${endpoints.httpUrl}/v1/books/${audio.id}`)).json()) as { edition: unknown };
    expect(JSON.stringify(rest.edition)).toBe('{"kind":"audio_minutes","print":null,"ebook":null,"audio_minutes":0}');
    const read = await fetch(`${endpoints.httpUrl}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: `{ get_book(params: { id: "${audio.id}" }) { edition { kind audio_minutes } } }` }),
    });
    expect(await read.json()).toEqual({ data: { get_book: { edition: { kind: "audio_minutes", audio_minutes: 0 } } } });
    // A REST body with its tag is taken, from the SDK and as written by hand.
    expect(await post({ kind: "ebook", ebook: { file_format: "epub" } })).toEqual([201, null]);
    const ebook = await client("rest", KEY).addBook({ title: "United, read", author: { name: "A" }, genre: "poetry", edition: { ebook: { file_format: "pdf" } } });
    expect(ebook.edition).toEqual({ kind: "ebook", print: null, ebook: { file_format: "pdf" }, audio_minutes: null });
  });

  it("carries a header input (If-Match) and answers a response header (ETag) over REST, the same fields over GraphQL and gRPC", async () => {
    const staff = { "content-type": "application/json", "x-bookstore-key": KEY };
    const added = await client("rest", KEY).addBook({ title: "Conditional", author: { name: "A" }, genre: "poetry" });
    expect(added.etag).toBe('"1"');
    const read = await fetch(`${endpoints.httpUrl}/v1/books/${added.id}`);
    expect([read.headers.get("etag"), ((await read.json()) as { etag: string }).etag]).toEqual(['"1"', '"1"']);
    const patch = (headers: Record<string, string>, body: Record<string, unknown>) =>
      fetch(`${endpoints.httpUrl}/v1/books/${added.id}`, { method: "PATCH", headers: { ...staff, ...headers }, body: JSON.stringify(body) });
    // A stale If-Match is refused with 412 and changes nothing.
    const stale = await patch({ "if-match": '"7"' }, { in_stock: false });
    expect([stale.status, await stale.json()]).toEqual([412, { code: "FAILED_PRECONDITION", message: `the book's etag is "1" now, not "7"` }]);
    // The field travels in its header alone: a body that names it is refused, as the contract says.
    const inBody = await patch({}, { in_stock: false, if_match: '"1"' });
    expect([inBody.status, ((await inBody.json()) as { message: string }).message]).toEqual([400, "if_match: send it in the if-match header, not the body"]);
    expect((await client("grpc").getBook({ id: added.id })).in_stock).toBe(true);
    const fresh = await patch({ "if-match": '"1"' }, { in_stock: false });
    expect([fresh.status, fresh.headers.get("etag"), ((await fresh.json()) as { in_stock: boolean }).in_stock]).toEqual([200, '"2"', false]);
    // Each SDK transport puts the field where its protocol carries it: the REST one in the header.
    let etag = '"2"';
    for (const protocol of ["rest", "graphql", "grpc"] as const) {
      const refused = await failure(client(protocol, KEY).updateBook({ id: added.id, in_stock: true, if_match: '"1"' }));
      expect([refused.code, refused.message], protocol).toEqual(["FAILED_PRECONDITION", `the book's etag is ${etag} now, not "1"`]);
      const updated = await client(protocol, KEY).updateBook({ id: added.id, in_stock: true, if_match: etag });
      expect(updated.etag, protocol).toBe((etag = `"${Number(etag.slice(1, -1)) + 1}"`));
    }
    // The contract states both, and a browser page may send the one and read the other.
    const openapi = readFileSync(join(EXAMPLE, "generated", "openapi", "openapi.yaml"), "utf8");
    expect(openapi).toMatch(/operationId: update_book\n(?:.*\n)*?\s+- name: If-Match\n\s+in: header\n\s+required: false\n/);
    expect(openapi).toMatch(/operationId: get_book\n(?:.*\n)*?\s+headers:\n\s+ETag:\n\s+description: The answer's etag, as in its body/);
    const APP = "https://app.example.com";
    const browsed = createServer(createBookstore(), { port: 0, grpcPort: 0, cors: { origins: [APP] }, verifyApiKey: async () => null });
    const { httpUrl } = await browsed.listen();
    try {
      const preflight = await fetch(`${httpUrl}/v1/books/x`, { method: "OPTIONS", headers: { origin: APP, "access-control-request-method": "PATCH" } });
      expect(preflight.headers.get("access-control-allow-headers")!.split(", ")).toContain("if-match");
      const answer = await fetch(`${httpUrl}/v1/books/x`, { headers: { origin: APP } });
      expect(answer.headers.get("access-control-expose-headers")!.split(", ")).toContain("etag");
    } finally {
      await browsed.close();
    }
  });

  it("serves its resource routes with path parameters", async () => {
    const created = await fetch(`${endpoints.httpUrl}/v1/books`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-bookstore-key": KEY },
      body: JSON.stringify({ title: "Dune", author: { name: "Frank Herbert" }, genre: "fiction" }),
    });
    const book = (await created.json()) as { id: string };
    // add_book declares 201 Created.
    expect(created.status).toBe(201);
    expect((await fetch(`${endpoints.httpUrl}/v1/books/${book.id}`)).status).toBe(200);
    const patched = await fetch(`${endpoints.httpUrl}/v1/books/${book.id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json", "x-bookstore-key": KEY },
      body: JSON.stringify({ in_stock: false }),
    });
    expect(await patched.json()).toMatchObject({ id: book.id, in_stock: false });
    expect((await fetch(`${endpoints.httpUrl}/v1/books/${book.id}`, { method: "DELETE" })).status).toBe(401);
    expect((await fetch(`${endpoints.httpUrl}/v1/books/${book.id}`, { method: "DELETE", headers: { "x-bookstore-key": KEY } })).status).toBe(200);
  });

  it("answers a route declared 204 without a body, matches a fixed segment before a {field} one, and reads a repeated query parameter as a list", async () => {
    const staff = { "x-bookstore-key": KEY };
    const added = await client("rest", KEY).addBook({ title: "Precedence of fixed segments", author: { name: "A" }, genre: "poetry" });
    await client("rest", KEY).editBook({ id: added.id, labels: { shelf: "B2" } });
    const cleared = await fetch(`${endpoints.httpUrl}/v1/books/${added.id}/labels`, { method: "DELETE", headers: staff });
    expect([cleared.status, await cleared.text(), cleared.headers.get("content-type")]).toEqual([204, "", null]);
    expect((await client("grpc").getBook({ id: added.id })).labels).toEqual({});
    // Every SDK takes a 204 as the empty answer it is.
    for (const protocol of ["rest", "grpc"] as const) expect(await client(protocol, KEY).clearLabels({ id: added.id })).toEqual({});
    // /v1/books/search is search_books, not get_book of the book "search".
    const found = await fetch(`${endpoints.httpUrl}/v1/books/search?words=precedence&genres=history&genres=poetry`);
    expect(found.status).toBe(200);
    expect(((await found.json()) as { books: { id: string }[] }).books.map((b) => b.id)).toEqual([added.id]);
    const none = (await (await fetch(`${endpoints.httpUrl}/v1/books/search?words=precedence&genres=history`)).json()) as { books: unknown[] };
    expect(none.books).toEqual([]);
    expect((await client("rest").searchBooks({ words: "precedence", genres: ["fiction", "poetry"] })).books.map((b) => b.id)).toEqual([added.id]);
    const tooMany = await fetch(`${endpoints.httpUrl}/v1/books/search?words=x${"&genres=poetry".repeat(5)}`);
    expect([tooMany.status, ((await tooMany.json()) as { message: string }).message]).toEqual([400, "genres: must have at most 4 items"]);
    const openapi = readFileSync(join(EXAMPLE, "generated", "openapi", "openapi.yaml"), "utf8");
    expect(openapi).toMatch(/operationId: add_book\n(?:.*\n)*?\s+responses:\n\s+"201":/);
    expect(openapi).toMatch(/operationId: clear_labels\n(?:.*\n)*?\s+responses:\n\s+"204":\n\s+description: "Done: clear_labels answers no content\."\n/);
  });
});

describe("the bookstore's MCP tools of API-key operations", () => {
  type CallResult = { isError?: boolean; structuredContent?: Record<string, any>; content: { type: string; text: string }[] };
  const call = async (mcp: Client, name: string, args: Record<string, unknown> = {}) => (await mcp.callTool({ name, arguments: args })) as CallResult;
  const errorOf = (result: CallResult) => {
    expect(result.isError).toBe(true);
    return JSON.parse(result.content[0]!.text) as { code: string; message: string };
  };
  const connectHttp = async (url: string, headers: Record<string, string> = {}) => {
    const mcp = new Client({ name: "bookstore-test", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    return mcp;
  };
  /** The titles of every book the store holds, read over REST (public). */
  const titles = async () => {
    const reader = client("rest");
    const all: string[] = [];
    for await (const book of reader.iterateListBooks({})) all.push(book.title);
    await reader.close();
    return all;
  };
  const main = join(EXAMPLE, "generated", "mcp", "main.ts");
  const stdio = async (env: Record<string, string>) => {
    const mcp = new Client({ name: "bookstore-test", version: "1.0.0" });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["--import", "tsx", main, "--service-url", endpoints.httpUrl],
      env: { PATH: process.env.PATH ?? "", ...env },
      cwd: REPO_ROOT,
      stderr: "pipe",
    });
    await mcp.connect(transport);
    return mcp;
  };
  const book = (title: string) => ({ title, author: { name: "Ursula K. Le Guin" }, genre: "fiction" });

  it("bookstore-mcp over stdio sends BOOKSTORE_API_KEY in x-bookstore-key; without it a write answers UNAUTHENTICATED and writes nothing", async () => {
    const keyed = await stdio({ BOOKSTORE_API_KEY: KEY });
    const added = await call(keyed, "add_book", book("The Dispossessed (stdio)"));
    expect(added.isError, added.content[0]?.text).toBeFalsy();
    expect(added.structuredContent).toMatchObject({ title: "The Dispossessed (stdio)", in_stock: true });
    expect((await call(keyed, "update_book", { id: added.structuredContent!.id, in_stock: false })).structuredContent).toMatchObject({ in_stock: false });
    await keyed.close();

    const keyless = await stdio({});
    const refused = errorOf(await call(keyless, "add_book", book("Keyless (stdio)")));
    expect(refused).toEqual({ code: "UNAUTHENTICATED", message: "add_book needs an API key: set BOOKSTORE_API_KEY" });
    expect(errorOf(await call(keyless, "remove_book", { id: added.structuredContent!.id })).code).toBe("UNAUTHENTICATED");
    // Public tools need no key.
    expect((await call(keyless, "get_book", { id: added.structuredContent!.id })).structuredContent).toMatchObject({ in_stock: false });
    await keyless.close();

    const wrong = await stdio({ BOOKSTORE_API_KEY: "not-the-key" });
    const wrongKey = errorOf(await call(wrong, "add_book", book("Wrong key (stdio)")));
    expect(wrongKey.code).toBe("UNAUTHENTICATED");
    expect(wrongKey.message).toContain("x-bookstore-key");
    await wrong.close();

    const held = await titles();
    expect(held).toContain("The Dispossessed (stdio)");
    expect(held.filter((title) => title.startsWith("Keyless") || title.startsWith("Wrong key"))).toEqual([]);
  }, 60_000);

  it("bookstore-mcp over stdio sends BOOKSTORE_ACCESS_TOKEN to a tool a reader's token lets in; without either credential, edit_book names both", async () => {
    const seeded = await client("rest", KEY).addBook({ title: "The Word for World Is Forest (stdio)", author: { name: "Ursula K. Le Guin" }, genre: "fiction" });
    const reader = await stdio({ BOOKSTORE_ACCESS_TOKEN: EDITOR });
    const edited = await call(reader, "edit_book", { id: seeded.id, title: "Edited by a reader (stdio)" });
    expect(edited.isError, edited.content[0]?.text).toBeFalsy();
    expect(edited.structuredContent).toMatchObject({ title: "Edited by a reader (stdio)" });
    // add_book takes the staff's key alone: the token is not enough.
    expect(errorOf(await call(reader, "add_book", book("By a reader (stdio)")))).toEqual({ code: "UNAUTHENTICATED", message: "add_book needs an API key: set BOOKSTORE_API_KEY" });
    await reader.close();
    const browsing = await stdio({ BOOKSTORE_ACCESS_TOKEN: BROWSER });
    expect(errorOf(await call(browsing, "edit_book", { id: seeded.id, title: "Denied (stdio)" }))).toEqual({
      code: "PERMISSION_DENIED",
      message: "EditBook needs the scope books:write, which the bearer token does not grant",
    });
    await browsing.close();
    const keyless = await stdio({});
    expect(errorOf(await call(keyless, "edit_book", { id: seeded.id, title: "Anonymous (stdio)" }))).toEqual({
      code: "UNAUTHENTICATED",
      message: "edit_book needs an API key or a user's access token: set BOOKSTORE_API_KEY or BOOKSTORE_ACCESS_TOKEN",
    });
    await keyless.close();
    expect((await client("rest").getBook({ id: seeded.id })).title).toBe("Edited by a reader (stdio)");
  }, 60_000);

  it("bookstore-mcp refuses --api-key on the command line, naming BOOKSTORE_API_KEY, and lists it in its usage", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", main, "--service-url", endpoints.httpUrl, "--api-key", KEY], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? "" } });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain("--api-key is not taken on the command line, where other users of the machine can read it: set BOOKSTORE_API_KEY instead");
    // The bookstore has no admin operations: no admin secret to set.
    expect(stderr).toContain("environment: BOOKSTORE_SERVICE_URL, BOOKSTORE_ACCESS_TOKEN and BOOKSTORE_API_KEY (stdio: the credentials of every call)");
  }, 60_000);

  it("bookstore-mcp over HTTP takes each request's x-bookstore-key; a request without it is refused with 401 and runs nothing", async () => {
    const { url, stop } = await startHttpMcpServer(main, endpoints.httpUrl);
    try {
      const keyed = await connectHttp(url, { "x-bookstore-key": KEY });
      expect((await call(keyed, "add_book", book("The Lathe of Heaven (http)"))).structuredContent).toMatchObject({ title: "The Lathe of Heaven (http)" });
      await keyed.close();
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "add_book", arguments: book("Keyless (http)") } }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="mcp", x-bookstore-key="api_key tools"');
      expect(((await response.json()) as { error: { message: string } }).error.message).toBe("add_book needs an API key in the x-bookstore-key header");
      const wrong = await connectHttp(url, { "x-bookstore-key": "not-the-key" });
      expect(errorOf(await call(wrong, "add_book", book("Wrong key (http)"))).code).toBe("UNAUTHENTICATED");
      await wrong.close();
      const held = await titles();
      expect(held).toContain("The Lathe of Heaven (http)");
      expect(held.filter((title) => title.endsWith("(http)") && title !== "The Lathe of Heaven (http)")).toEqual([]);
    } finally {
      stop();
    }
  }, 60_000);

  it("the stubs' /mcp takes the x-bookstore-key of each request; without it, or with a wrong one, 401 and nothing written", async () => {
    const served = createServer(createBookstore(), { port: 0, grpcPort: 0, mcp: true, verifyApiKey: async (key) => (key === KEY ? { keyId: "store-owner" } : null) });
    const { httpUrl } = await served.listen();
    try {
      const keyed = await connectHttp(`${httpUrl}/mcp`, { "x-bookstore-key": KEY });
      const added = await call(keyed, "add_book", book("A Wizard of Earthsea (/mcp)"));
      expect(added.structuredContent).toMatchObject({ title: "A Wizard of Earthsea (/mcp)" });
      await keyed.close();
      for (const headers of [{}, { "x-bookstore-key": "not-the-key" }] as Record<string, string>[]) {
        const response = await fetch(`${httpUrl}/mcp`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "add_book", arguments: book("Refused (/mcp)") } }),
        });
        expect(response.status).toBe(401);
        expect(response.headers.get("www-authenticate")).toBe('Bearer realm="mcp", x-bookstore-key="api_key tools"');
        expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/x-bookstore-key/);
      }
      const reader = new StoreClient({ serviceUrl: httpUrl, protocol: "rest" });
      expect((await reader.listBooks({})).books.map((b) => b.title)).toEqual(["A Wizard of Earthsea (/mcp)"]);
      await reader.close();
    } finally {
      await served.close();
    }
  }, 60_000);
});
