// What the operation groups are built from, and the shape each group returns: a slice of the
// generated `Implementation` interface.
import type { Implementation } from "../generated/server/index.js";
import type { TrustedIssuers } from "./assertions.js";
import type { Core } from "./core.js";
import type { Events } from "./events.js";
import type { Sessions } from "./sessions.js";
import type { TokenService } from "./tokens.js";

export interface Deps {
  core: Core;
  tokens: TokenService;
  sessions: Sessions;
  events: Events;
  trustedIssuers: TrustedIssuers;
}

export type Operations<K extends keyof Implementation> = Pick<Implementation, K>;
