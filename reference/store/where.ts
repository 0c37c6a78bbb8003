// Conditions of a Where evaluated on a record, for the in-memory store (the SQL store turns them
// into SQL instead). Both give the same answers; test/reference/storage.test.ts holds them to it.
import type { Condition, Where } from "../storage.js";

type Plain = Record<string, unknown>;
/** A comparison a condition may hold (equality is written as a plain value). */
export type Operator = "ne" | "gt" | "gte" | "lt" | "lte" | "in" | "contains";

/** The comparisons of a condition, each an operator and its operand; equality when it is a plain value; none when all are left out. */
export function comparisonsOf(condition: Condition<unknown>): [Operator | "eq", unknown][] {
  if (condition === null || typeof condition !== "object" || Array.isArray(condition)) return [["eq", condition]];
  return Object.entries(condition as Plain).filter(([, operand]) => operand !== undefined) as [Operator, unknown][];
}

function holds(value: unknown, condition: Condition<unknown>): boolean {
  return comparisonsOf(condition).every(([operator, operand]) => compare(value ?? null, operator, operand));
}

function compare(v: unknown, operator: Operator | "eq", operand: unknown): boolean {
  switch (operator) {
    case "eq":
      return v === (operand ?? null);
    case "ne":
      return operand === null ? v !== null : v !== null && v !== operand;
    case "in":
      return (operand as unknown[]).includes(v);
    case "contains":
      return typeof v === "string" && v.toLowerCase().includes(String(operand).toLowerCase());
    default: {
      if (v === null) return false;
      const a = v as number | string;
      const b = operand as number | string;
      return operator === "gt" ? a > b : operator === "gte" ? a >= b : operator === "lt" ? a < b : a <= b;
    }
  }
}

export function matches<Q>(record: object, where: Where<Q> | undefined): boolean {
  if (!where) return true;
  for (const [column, condition] of Object.entries(where as Plain)) {
    if (column === "anyOf" || condition === undefined) continue;
    if (!holds((record as Plain)[column], condition as Condition<unknown>)) return false;
  }
  const anyOf = where.anyOf;
  return anyOf === undefined || anyOf.some((alternative) => matches(record, alternative));
}
