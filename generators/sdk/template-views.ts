// What the views of both SDKs' templates share (python-views.ts, go-views.ts). Not in templates.ts,
// which the bundled CLI replaces by the precompiled templates.

/** What a README says of the clients the API has (one where all its operations are on one), and the table of each one's operations. */
export interface ReadmeClientsView {
  hasAdminClient: boolean;
  adminClient: string | undefined;
  adminTable: string;
  hasUserClient: boolean;
  userClient: string | undefined;
  userTable: string;
}

/** The `default` of a switch over the templates of a language: a template without a view fails to compile, or (untyped) to run. */
export function templateWithoutView(language: string, template: never): never {
  throw new Error(`templates/${language}/${(template as { path: string }).path}.hbs has no view in generators/sdk/${language}-views.ts`);
}
