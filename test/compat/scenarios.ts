// The scenarios of the compatibility run: short sequences of calls made through the SDK under test
// alone, over the network (no access to the service's state), so that an SDK of any release can
// replay them against a service of any release. Each step's outcome is compared between the
// service of the SDK's own release and today's: the same code, the same fields, each as empty or
// as full, arrays as long (compat-outcome.ts says how an answer is reduced to that).

/** What earlier steps answered, by the names their `keep` gave. */
export type CompatValues = Record<string, string>;

export interface CompatStep {
  surface: "admin" | "user" | "oauth";
  operation: string;
  input: (values: CompatValues, tag: string) => Record<string, unknown>;
  /** Values of the answer later steps use (an id, a token). */
  keep?: (answer: Record<string, unknown>) => CompatValues;
  /** The user's access token this call carries (a value kept earlier). */
  accessToken?: string;
  /** The code the step fails with at the release; every other step must succeed there (or the scenario proves nothing). */
  fails?: string;
}

export interface CompatScenario {
  name: string;
  /** The calls in order; each is compared, and a step that fails ends the scenario. */
  steps: CompatStep[];
}

const PASSWORD = "Compat-passw0rd-1";

export const COMPAT_SCENARIOS: readonly CompatScenario[] = [
  {
    name: "the service reports its version",
    steps: [{ surface: "admin", operation: "admin_meta", input: () => ({}) }],
  },
  {
    name: "an organization made is read back whole",
    steps: [
      { surface: "admin", operation: "create_organization", input: (_, tag) => ({ name: `compat-${tag}`, display_name: "Compat Org" }), keep: (answer) => ({ orgId: String(answer.id) }) },
      { surface: "admin", operation: "get_organization", input: (values) => ({ id: values.orgId }) },
    ],
  },
  {
    name: "an unknown organization is not found",
    steps: [{ surface: "admin", operation: "get_organization", input: () => ({ id: "no-such-organization" }), fails: "NOT_FOUND" }],
  },
  {
    name: "deleting an unknown organization is refused",
    steps: [{ surface: "admin", operation: "delete_organization", input: () => ({ id: "no-such-organization" }), fails: "NOT_FOUND" }],
  },
  {
    name: "a name taken twice is refused the second time",
    steps: [
      { surface: "admin", operation: "create_organization", input: (_, tag) => ({ name: `twice-${tag}` }) },
      { surface: "admin", operation: "create_organization", input: (_, tag) => ({ name: `twice-${tag}` }), fails: "ALREADY_EXISTS" },
    ],
  },
  {
    name: "members invited are listed a full page at a time",
    steps: [
      { surface: "admin", operation: "create_organization", input: (_, tag) => ({ name: `members-${tag}` }), keep: (answer) => ({ orgId: String(answer.id) }) },
      { surface: "admin", operation: "invite_members", input: (_, tag) => ({ emails: Array.from({ length: 12 }, (_, index) => `member-${index}-${tag}@compat.example.com`) }) },
      { surface: "admin", operation: "users", input: (_, tag) => ({ query: tag }) },
    ],
  },
  {
    name: "a user signs up, logs in and reads the profile",
    steps: [
      { surface: "user", operation: "signup", input: (_, tag) => ({ email: `user-${tag}@compat.example.com`, password: PASSWORD, confirm_password: PASSWORD }) },
      {
        surface: "user",
        operation: "login",
        input: (_, tag) => ({ email: `user-${tag}@compat.example.com`, password: PASSWORD }),
        keep: (answer) => ({ accessToken: String(answer.access_token) }),
      },
      { surface: "user", operation: "profile", input: () => ({}), accessToken: "accessToken" },
    ],
  },
  {
    name: "a wrong password is refused",
    steps: [
      { surface: "user", operation: "signup", input: (_, tag) => ({ email: `wrong-${tag}@compat.example.com`, password: PASSWORD, confirm_password: PASSWORD }) },
      { surface: "user", operation: "login", input: (_, tag) => ({ email: `wrong-${tag}@compat.example.com`, password: `${PASSWORD}-not` }), fails: "UNAUTHENTICATED" },
    ],
  },
  {
    name: "the profile needs a signed-in user",
    steps: [{ surface: "user", operation: "profile", input: () => ({}), fails: "UNAUTHENTICATED" }],
  },
];
