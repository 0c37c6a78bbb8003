// The path and query of a request, in a module of its own: the server's dispatch (index.ts) splits
// the target and hands it to the REST routes (rest.ts), which index.ts imports.

/** Path and query of a request target, without the cost of a full URL parse per request. */
export interface RequestTarget {
  pathname: string;
  query: string;
}

export function requestTarget(target: string): RequestTarget {
  const index = target.indexOf("?");
  return index < 0 ? { pathname: target, query: "" } : { pathname: target.slice(0, index), query: target.slice(index + 1) };
}
