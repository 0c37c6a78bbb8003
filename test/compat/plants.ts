// Behaviour changes the compatibility run's tests plant in today's service, each behind an unchanged
// contract: what a static diff of the contracts cannot see, and the run must.
/** The behaviour changes a test can plant, each behind an unchanged contract. */
export const PLANTS = {
  /** `users` answers 5 a page, whatever page size the call asked for or the manifest declares. */
  "page-size": "the default page size of users",
  /** An unknown organization is INVALID_ARGUMENT instead of NOT_FOUND. */
  "error-code": "the error code of get_organization for an unknown id",
  /** get_organization answers without its display_name. */
  "field-emptied": "display_name emptied in get_organization",
  /** Deleting an unknown organization succeeds instead of NOT_FOUND. */
  "refusal-success": "delete_organization of an unknown id succeeds",
} as const;
export type Plant = keyof typeof PLANTS;

type Implementation = Record<string, (input: Record<string, unknown>, context: unknown) => Promise<Record<string, unknown>>>;

export function planted(implementation: Implementation, plant: Plant, ServiceError: new (code: string, message: string) => Error): Implementation {
  const wrapped = { ...implementation };
  const code = (error: unknown) => (error as { code?: string }).code;
  switch (plant) {
    case "page-size":
      // The stubs fill the declared page size in before the implementation sees the call: the page is cut short after.
      wrapped.users = async (input, context) => {
        const answer = await implementation.users!(input, context);
        return { ...answer, users: (answer.users as unknown[]).slice(0, 5) };
      };
      break;
    case "error-code":
      wrapped.getOrganization = (input, context) =>
        implementation.getOrganization!(input, context).catch((error: unknown) => {
          throw code(error) === "NOT_FOUND" ? new ServiceError("INVALID_ARGUMENT", "id: no such organization") : error;
        });
      break;
    case "field-emptied":
      wrapped.getOrganization = async (input, context) => ({ ...(await implementation.getOrganization!(input, context)), display_name: null });
      break;
    case "refusal-success":
      wrapped.deleteOrganization = (input, context) =>
        implementation.deleteOrganization!(input, context).catch((error: unknown) => {
          if (code(error) === "NOT_FOUND") return { message: "organization deleted" };
          throw error;
        });
      break;
  }
  return wrapped;
}
