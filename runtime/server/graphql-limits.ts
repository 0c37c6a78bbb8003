// Limits on the cost of a GraphQL document, checked once per document text after graphql-js's own
// validation (which has already refused fragment cycles): how deep its selections nest and how many
// fields it selects once every fragment is expanded. Without them a small document can ask for an
// answer that grows exponentially (fragments spread inside fragments) or a parse that takes seconds.
import { GraphQLError, Kind, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from "graphql";

/** The most levels of nested selections a document may have: the introspection query of tools (GraphiQL, schemathesis) takes 15. */
export const MAX_DOCUMENT_DEPTH = 20;
/** The most fields a document may select, every fragment expanded. */
export const MAX_DOCUMENT_FIELDS = 2000;
/** The most tokens graphql-js reads before it gives up on a document (bounds the parse itself). */
export const MAX_DOCUMENT_TOKENS = 10_000;

interface Cost {
  depth: number;
  fields: number;
}

const NOTHING: Cost = { depth: 0, fields: 0 };

/** The errors of a document that asks for too much, or none. */
export function documentLimitErrors(document: DocumentNode): GraphQLError[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const fragmentCosts = new Map<string, Cost>();
  const costOf = (selectionSet: SelectionSetNode): Cost => {
    let depth = 0;
    let fields = 0;
    for (const selection of selectionSet.selections) {
      let inner: Cost;
      if (selection.kind === Kind.FIELD) {
        const below = selection.selectionSet ? costOf(selection.selectionSet) : NOTHING;
        inner = { depth: below.depth + 1, fields: below.fields + 1 };
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        inner = costOf(selection.selectionSet);
      } else {
        const name = selection.name.value;
        let known = fragmentCosts.get(name);
        if (!known) {
          const fragment = fragments.get(name);
          known = fragment ? costOf(fragment.selectionSet) : NOTHING;
          fragmentCosts.set(name, known);
        }
        inner = known;
      }
      depth = Math.max(depth, inner.depth);
      // Saturated: past the limit the exact count does not matter, and it cannot overflow.
      fields = Math.min(fields + inner.fields, MAX_DOCUMENT_FIELDS + 1);
    }
    return { depth, fields };
  };
  const errors: GraphQLError[] = [];
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const cost = costOf(definition.selectionSet);
    if (cost.depth > MAX_DOCUMENT_DEPTH) errors.push(new GraphQLError(`the document nests its selections ${cost.depth} levels deep; at most ${MAX_DOCUMENT_DEPTH} are allowed`));
    if (cost.fields > MAX_DOCUMENT_FIELDS) errors.push(new GraphQLError(`the document selects more than ${MAX_DOCUMENT_FIELDS} fields once its fragments are expanded`));
  }
  return errors;
}
