// graphql-js words its refusals of a document with the literals it refuses ("String cannot represent
// a non string value: 12345678", `Expected Name, found String "..."`); the contract's messages never
// repeat a value the caller sent, so those literals are taken out and everything else is kept.
import { Kind, print, type ASTNode, type GraphQLError } from "graphql";

const VALUE_KINDS: ReadonlySet<string> = new Set([Kind.INT, Kind.FLOAT, Kind.STRING, Kind.BOOLEAN, Kind.NULL, Kind.ENUM, Kind.LIST, Kind.OBJECT]);
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** A token the lexer quotes in a syntax error: `String "..."`, `Int "42"`. */
const QUOTED_TOKEN = /\b(String|BlockString|Int|Float) "(?:[^"\\]|\\.)*"/g;

/** The message of a document's refusal, without the values the document holds. */
export function documentErrorMessage(error: GraphQLError): string {
  let message = error.message.replace(QUOTED_TOKEN, "$1");
  for (const node of (error.nodes ?? []) as ASTNode[]) {
    if (!VALUE_KINDS.has(node.kind)) continue;
    // graphql-js puts the printed literal after "found " or ": ", or quotes it (an unknown enum value).
    const literal = escapeRegExp(print(node));
    message = message.replace(new RegExp(`(found |: )${literal}`, "g"), "$1(the value sent)").replace(new RegExp(`"${literal}"`, "g"), "(the value sent)");
  }
  return message;
}
