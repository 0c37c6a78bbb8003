// scrypt at the service's default cost takes ~180 ms a hash: tests that sign many users up pass
// this cost instead (account.test.ts checks the default and the rehash at sign-in).
import type { PasswordHashCost } from "../../reference/secrets.js";

export const TEST_PASSWORD_HASH_COST: PasswordHashCost = {
  N: 1024,
  r: 8,
  p: 1,
};
