// Semantic-version precedence (semver 2.0 §11), small enough to ship in every client.

function identifiers(prerelease: string | undefined): (string | number)[] {
  return prerelease === undefined ? [] : prerelease.split(".").map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/** Negative when a < b, zero when equal, positive when a > b. Build metadata is ignored. */
export function compareVersions(a: string, b: string): number {
  const parse = (version: string) => {
    const match = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+.*)?$/.exec(version.trim());
    if (!match) throw new Error(`'${version}' is not a version`);
    return { core: [Number(match[1]), Number(match[2]), Number(match[3])], pre: identifiers(match[4]) };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) if (x.core[i] !== y.core[i]) return x.core[i]! - y.core[i]!;
  if (x.pre.length === 0 || y.pre.length === 0) return y.pre.length - x.pre.length;
  for (let i = 0; i < Math.max(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i];
    const q = y.pre[i];
    if (p === undefined) return -1;
    if (q === undefined) return 1;
    if (p === q) continue;
    if (typeof p === "number" && typeof q === "number") return p - q;
    if (typeof p === "number") return -1;
    if (typeof q === "number") return 1;
    return p < q ? -1 : 1;
  }
  return 0;
}
