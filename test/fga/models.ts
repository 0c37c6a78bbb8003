// The FGA models the tests ask about: one per shape of OpenFGA's rewrites.

/** The models, each with the object types it puts tuples on. */
export const MODELS: Record<string, string> = {
  "direct, public access, computed usersets and nested groups (with cycles)": `model
  schema 1.1
type user
type group
  relations
    define member: [user, group#member]
type document
  relations
    define owner: [user]
    define editor: [user, group#member] or owner
    define viewer: [user, user:*, group#member] or editor`,
  "tuple-to-userset through nested folders": `model
  schema 1.1
type user
type folder
  relations
    define parent: [folder]
    define owner: [user]
    define viewer: [user] or owner or viewer from parent
type document
  relations
    define parent: [folder]
    define editor: [user]
    define viewer: [user] or editor or viewer from parent`,
  "intersection and exclusion, with public access excluded": `model
  schema 1.1
type user
type team
  relations
    define member: [user, team#member]
type document
  relations
    define blocked: [user, team#member]
    define allowed: [user, user:*]
    define member: [user, team#member]
    define viewer: allowed but not blocked
    define editor: member and allowed
    define auditor: (member or allowed) but not (blocked and member)`,
  "relations defined through each other": `model
  schema 1.1
type user
type group
  relations
    define member: [user, group#member] or admin
    define admin: [user] or owner
    define owner: [user, group#member]
type repo
  relations
    define org: [group]
    define reader: [user, group#member] or writer or member from org
    define writer: [user] or admin from org
    define banned: [user]
    define can_read: reader but not banned`,
};
