// Case conversions. Only the IR builder calls these: every other module reads names from the IR.

/** snake_case words -> PascalCase, writing configured acronyms in capitals (delete_org_oidc_connection -> DeleteOrgOIDCConnection). */
export function pascalCase(snake: string, acronyms: ReadonlySet<string>): string {
  return snake
    .split("_")
    .map((word) => pascalWord(word, acronyms))
    .join("");
}

/** snake_case -> camelCase; the first word stays lower case entirely (fga_get_model -> fgaGetModel). */
export function camelCase(snake: string, acronyms: ReadonlySet<string>): string {
  const [first = "", ...rest] = snake.split("_");
  return first + rest.map((word) => pascalWord(word, acronyms)).join("");
}

/** snake_case -> a sentence-case title with acronyms (delete_org_oidc_connection -> Delete org OIDC connection). */
export function sentenceCase(snake: string, acronyms: ReadonlySet<string>): string {
  const title = snake
    .split("_")
    .map((word) => (acronyms.has(word.toUpperCase()) ? word.toUpperCase() : word))
    .join(" ");
  return title.charAt(0).toUpperCase() + title.slice(1);
}

/** PascalCase -> UPPER_SNAKE_CASE, keeping acronym runs together (SAMLIDPKeyStatus -> SAMLIDP_KEY_STATUS). */
export function upperSnakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .toUpperCase();
}

function pascalWord(word: string, acronyms: ReadonlySet<string>): string {
  const upper = word.toUpperCase();
  if (acronyms.has(upper)) return upper;
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** Levenshtein distance, for "did you mean" hints. */
export function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!;
      const cost = a[i - 1]!.toLowerCase() === b[j - 1]!.toLowerCase() ? 0 : 1;
      previous[j] = Math.min(above + 1, previous[j - 1]! + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return previous[b.length]!;
}

/** The closest candidate within a distance that still reads as a typo, or undefined. */
export function closest(input: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(input.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(input, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

export function didYouMean(input: string, candidates: Iterable<string>): string {
  const suggestion = closest(input, candidates);
  return suggestion === undefined ? "" : `; did you mean '${suggestion}'?`;
}
