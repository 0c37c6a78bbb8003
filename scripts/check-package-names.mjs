// `npm run check:names [-- --root <dir>] [--npm <name>] [--pypi <name>] [--go <module>]`: asks the
// registries whether the names a project publishes under are free. The names are those its
// generated packages carry (api.packages of its manifest, or the defaults derived from api.name):
// the npm SDK, server and MCP packages (generated/packages/*/package.json), the PyPI distribution
// (generated/python/pyproject.toml) and the Go module path (generated/go/go.mod); --npm, --pypi and
// --go add candidates to check before choosing them. For each it asks the npm registry, PyPI's JSON
// API or the Go module proxy, and prints a table: free (nobody has published it), ours (published
// from the project's own repository, api.repository), taken (by someone else), unusable (a Go module
// path on a placeholder domain, which nobody can fetch) or unknown (the registry gave no clear
// answer). Exits 1 when a name is taken or unusable, 2 when an answer is unknown, else 0.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { isMain } from "./is-main.mjs";

export const REGISTRIES = {
  npm: "https://registry.npmjs.org",
  pypi: "https://pypi.org",
  go: "https://proxy.golang.org",
};

/** Domains no module can be fetched from (RFC 2606, RFC 6761). */
const PLACEHOLDER_DOMAIN = /^(?:(?:[a-z0-9-]+\.)*example(?:\.(?:com|org|net))?|(?:[a-z0-9-]+\.)*(?:test|invalid|localhost|example))$/;

/**
 * A repository URL as a comparable key: host and path, lower case, without scheme, credentials,
 * `.git`, a fragment or a trailing slash (git+https://github.com/A/b.git#readme -> github.com/a/b).
 */
export function repositoryKey(url) {
  if (typeof url !== "string" || url.trim() === "") return undefined;
  const bare = url
    .trim()
    .replace(/^git\+/, "")
    .replace(/^git@([^:]+):/, "https://$1/")
    .replace(/^github:/, "https://github.com/");
  try {
    const parsed = new URL(/^[a-z]+:\/\//i.test(bare) ? bare : `https://${bare}`);
    const path = parsed.pathname.replace(/\.git$/, "").replace(/\/+$/, "");
    return `${parsed.hostname}${path}`.toLowerCase();
  } catch {
    return undefined;
  }
}

/** The names a generated project publishes under, and its repository: read from what `apigen generate` wrote under `root`. */
export function projectNames(root) {
  const generated = join(root, "generated");
  const read = (path) => {
    try {
      return readFileSync(join(generated, path), "utf8");
    } catch {
      throw new Error(`${join(generated, path)} is missing: generate the project first (apigen generate --root ${root})`);
    }
  };
  const npm = ["sdk", "server", "mcp"].map((kind) => {
    const pkg = JSON.parse(read(join("packages", kind, "package.json")));
    return { pkg, entry: { registry: "npm", name: pkg.name, what: `${kind} package` } };
  });
  const repository = npm.map(({ pkg }) => (typeof pkg.repository === "string" ? pkg.repository : pkg.repository?.url)).find(Boolean);
  const pyproject = read(join("python", "pyproject.toml"));
  const distribution = /^\[project\][\s\S]*?^name\s*=\s*"([^"]+)"/m.exec(pyproject)?.[1];
  if (!distribution) throw new Error(`${join(generated, "python", "pyproject.toml")} names no [project] name`);
  const module = /^module\s+(\S+)/m.exec(read(join("go", "go.mod")))?.[1];
  if (!module) throw new Error(`${join(generated, "go", "go.mod")} names no module`);
  return {
    repository: repositoryKey(repository),
    names: [...npm.map(({ entry }) => entry), { registry: "pypi", name: distribution, what: "Python distribution" }, { registry: "go", name: module, what: "Go module" }],
  };
}

/** A module path as the Go module proxy spells it: each capital as ! and its lower case. */
export const escapeModulePath = (path) => path.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);

/** The URLs each question asks, in order (a Go module: its tagged versions, then its latest, which an untagged module has too). */
export function questionsOf(registry, name) {
  if (registry === "npm") return [`${REGISTRIES.npm}/${name.startsWith("@") ? `@${encodeURIComponent(name.slice(1))}` : encodeURIComponent(name)}`];
  if (registry === "pypi") return [`${REGISTRIES.pypi}/pypi/${encodeURIComponent(name)}/json`];
  const escaped = escapeModulePath(name);
  return [`${REGISTRIES.go}/${escaped}/@v/list`, `${REGISTRIES.go}/${escaped}/@latest`];
}

const firstLine = (text) => (text ?? "").trim().split("\n")[0]?.slice(0, 120) ?? "";

/** The repositories a registry's document of a package names: npm's repository and homepage (top level or the latest version's), PyPI's project URLs and home page. */
function publishedFrom(registry, body) {
  if (registry === "npm") {
    const latest = body?.versions?.[body?.["dist-tags"]?.latest] ?? {};
    return [body?.repository, latest.repository, body?.homepage, latest.homepage].map((r) => (typeof r === "string" ? r : r?.url));
  }
  return [body?.info?.home_page, ...Object.values(body?.info?.project_urls ?? {})];
}

/** The repository a URL is of: on a code host, its owner and name (github.com/encode/httpx/blob/master/x.md -> github.com/encode/httpx); else the URL's key. */
function repositoryOf(url) {
  const key = repositoryKey(url);
  const hosted = key && /^((?:github\.com|gitlab\.com|bitbucket\.org|codeberg\.org)\/[^/]+\/[^/]+)/.exec(key);
  return hosted ? hosted[1] : key;
}

/** Whether one of `urls` is the project's repository (or a page of it, such as its #readme). */
const fromRepository = (urls, repository) => repository !== undefined && urls.some((url) => repositoryOf(url) === repositoryOf(repository));

/** The owner of a module path on a code host (github.com/org/repo/v2 -> github.com/org), or its domain. */
function ownerOf(path) {
  const parts = path.toLowerCase().split("/");
  return ["github.com", "gitlab.com", "bitbucket.org", "codeberg.org"].includes(parts[0]) ? parts.slice(0, 2).join("/") : parts[0];
}

/**
 * The verdict on one name from the registry's answers to questionsOf(registry, name), in that order
 * ({ status, body }: body is the parsed JSON, or the text where the answer is not JSON; a status of
 * 0 when the registry could not be reached). `repository` is the project's repositoryKey.
 */
export function decide(registry, name, answers, repository) {
  if (registry === "go" && PLACEHOLDER_DOMAIN.test(name.split("/")[0].toLowerCase())) {
    return { verdict: "unusable", detail: `${name.split("/")[0]} is a placeholder domain: nobody can fetch a module from it; choose a path on a host you control` };
  }
  const unknown = (answer) => ({
    verdict: "unknown",
    detail: answer.status === 0 ? `no answer: ${firstLine(answer.body)}` : `answered ${answer.status}: ${firstLine(typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body))}`,
  });
  const gone = (answer) => answer.status === 404 || answer.status === 410;
  if (registry === "go") {
    const [list, latest] = answers;
    const versions = list && list.status === 200 && typeof list.body === "string" ? list.body.split("\n").filter(Boolean) : [];
    const published = versions.length > 0 ? `versions ${versions.slice(-3).join(", ")}` : latest?.status === 200 ? `untagged (${latest.body?.Version ?? "a pseudo-version"})` : undefined;
    if (published === undefined) {
      if (list && list.status !== 200 && !gone(list)) return unknown(list);
      if (!latest) return unknown({ status: 0, body: "the proxy was not asked for the latest version" });
      if (!gone(latest)) return unknown(latest);
      return { verdict: "free", detail: "the module proxy knows no such module" };
    }
    const ours = repository !== undefined && ownerOf(name) === ownerOf(repository);
    return ours
      ? { verdict: "ours", detail: `${published}, under ${ownerOf(name)} like the repository` }
      : { verdict: "taken", detail: `${published}; not under ${repository ? ownerOf(repository) : "the project's repository (api.repository names none)"}` };
  }
  const [answer] = answers;
  if (gone(answer)) return { verdict: "free", detail: registry === "npm" && name.startsWith("@") ? `unpublished; publishing it needs the npm scope ${name.split("/")[0]}` : "unpublished" };
  if (answer.status !== 200 || typeof answer.body !== "object" || answer.body === null) return unknown(answer);
  const urls = publishedFrom(registry, answer.body).filter(Boolean);
  const latest = registry === "npm" ? answer.body["dist-tags"]?.latest : answer.body.info?.version;
  if (fromRepository(urls, repository)) return { verdict: "ours", detail: `${latest ?? "published"} from ${repository}` };
  const named = urls.map(repositoryOf).filter(Boolean);
  const elsewhere = named.find((key) => /^(?:github\.com|gitlab\.com|bitbucket\.org|codeberg\.org)\//.test(key)) ?? named[0];
  return { verdict: "taken", detail: `${latest ? `${latest}, ` : ""}${elsewhere ? `from ${elsewhere}` : "from no repository it names"}` };
}

/** Asks one URL; answers { status, body } (JSON where it parses), status 0 when the registry cannot be reached. */
async function ask(url, fetchImpl) {
  try {
    const response = await fetchImpl(url, { headers: { accept: "application/json", "user-agent": "apigen check-package-names" }, signal: AbortSignal.timeout(20_000) });
    const text = await response.text();
    let body = text;
    try {
      body = JSON.parse(text);
    } catch {
      // the Go proxy answers text
    }
    return { status: response.status, body };
  } catch (error) {
    return { status: 0, body: error instanceof Error ? error.message : String(error) };
  }
}

/** Asks the registries about every name; answers the rows of the table, in the order given. */
export async function checkNames(names, repository, { fetch: fetchImpl = globalThis.fetch } = {}) {
  return Promise.all(
    names.map(async (entry) => {
      const answers = [];
      for (const url of questionsOf(entry.registry, entry.name)) {
        // The Go proxy's list answers enough when it has versions; the latest is asked only otherwise.
        if (entry.registry === "go" && answers.length === 1 && answers[0].status === 200 && typeof answers[0].body === "string" && answers[0].body.trim() !== "") break;
        answers.push(await ask(url, fetchImpl));
      }
      return { ...entry, ...decide(entry.registry, entry.name, answers, repository) };
    }),
  );
}

/** The table of the rows, aligned, and the exit code: 1 when a name is taken or unusable, 2 when an answer is unknown, else 0. */
export function report(rows) {
  const header = { registry: "registry", name: "name", verdict: "verdict", detail: "detail" };
  const all = [header, ...rows];
  const width = (key) => Math.max(...all.map((row) => row[key].length));
  const lines = all.map((row) => [row.registry.padEnd(width("registry")), row.name.padEnd(width("name")), row.verdict.padEnd(width("verdict")), row.detail].join("  ").trimEnd());
  const code = rows.some((row) => row.verdict === "taken" || row.verdict === "unusable") ? 1 : rows.some((row) => row.verdict === "unknown") ? 2 : 0;
  return { text: `${lines.join("\n")}\n`, code };
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      root: { type: "string", default: "." },
      npm: { type: "string", multiple: true, default: [] },
      pypi: { type: "string", multiple: true, default: [] },
      go: { type: "string", multiple: true, default: [] },
    },
  });
  let project;
  try {
    project = projectNames(resolve(values.root));
  } catch (error) {
    process.stderr.write(`check-package-names: ${error.message}\n`);
    process.exit(2);
  }
  const extra = ["npm", "pypi", "go"].flatMap((registry) => values[registry].map((name) => ({ registry, name, what: "candidate" })));
  const rows = await checkNames([...project.names, ...extra], project.repository);
  const { text, code } = report(rows);
  process.stdout.write(
    `${text}${project.repository ? `(ours: published from ${project.repository}, api.repository)` : "(the manifest names no api.repository: a published name cannot be told to be ours)"}\n`,
  );
  process.exitCode = code;
}
