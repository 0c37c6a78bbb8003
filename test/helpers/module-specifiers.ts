// The modules a TypeScript or JavaScript module names, read from its syntax tree (so that import
// lines inside strings and template literals, as emitters write them, are not taken for its own).
import ts from "typescript";

export interface SpecifierOptions {
  /** Also import("...") and require("...") calls: modules loaded when the code runs, not when the module is. */
  calls: boolean;
}

/** The specifiers of import and export-from declarations (type-only ones included), `import x = require("...")`, import("...") types and, with `calls`, loading calls. */
export function moduleSpecifiers(path: string, text: string, { calls }: SpecifierOptions): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      found.push(node.moduleReference.expression.text);
    } else if (calls && ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === "require"))) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) found.push(argument.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
