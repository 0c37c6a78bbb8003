// The gRPC port's answer encoder makes the very bytes protobuf-es does, for every answer of every
// RPC: every field set, every field unset, zero values, and values at the edges.
import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { AdminService } from "../../generated/proto/identity/v1/admin_service_pb.js";
import { UserService } from "../../generated/proto/identity/v1/user_service_pb.js";
import { schema } from "../../generated/schema.js";
import type { FieldSpec } from "../../runtime/schema.js";
import { answerEncoder } from "../../runtime/server/answer-encoder.js";
import { rpcMethods } from "../../runtime/server/rpc.js";
import { normalizeMessage, toProtoInit } from "../../runtime/shape.js";

type Plain = Record<string, unknown>;
type Variant = "zero" | "edge";

function value(field: FieldSpec, variant: Variant, depth: number): unknown {
  switch (field.kind) {
    case "string":
      return variant === "zero" ? "" : "ünïcode ✓ \u0000 end";
    case "bool":
      return variant !== "zero";
    case "int32":
      return variant === "zero" ? 0 : -(2 ** 31);
    case "int64":
      return variant === "zero" ? 0 : Number.MAX_SAFE_INTEGER;
    case "float64":
      return variant === "zero" ? 0 : -1.5e300;
    case "map":
      return variant === "zero" ? {} : { a: "1", "": "", ключ: "значение" };
    case "json":
      return variant === "zero" ? {} : { nested: { list: [1, "two", null, true] }, n: 2.5 };
    case "enum": {
      const names = Object.keys(schema.enums[field.ref!]!.values);
      return variant === "zero" ? names[0] : names.at(-1);
    }
    case "message":
      return depth > 3 ? null : message(field.ref!, variant, depth + 1);
  }
}

function message(name: string, variant: Variant, depth = 0): Plain {
  const result: Plain = {};
  for (const field of schema.messages[name]!.fields) {
    const item = value(field, variant, depth);
    result[field.name] = field.list ? (variant === "zero" ? [item] : [item, item]) : item;
  }
  return result;
}

const rpcs = rpcMethods(schema, [AdminService, UserService]);

describe("the answer encoder", () => {
  it.each(rpcs.map((rpc) => [rpc.path, rpc] as const))("writes the bytes protobuf-es writes for %s", (_path, { method, operation }) => {
    const encode = answerEncoder(schema, operation.output, method.output);
    const samples = [message(operation.output, "edge"), message(operation.output, "zero"), normalizeMessage(schema, operation.output, {})];
    for (const sample of samples) {
      const expected = toBinary(method.output, create(method.output, toProtoInit(schema, operation.output, sample) as never));
      expect(Buffer.from(encode(sample)).toString("hex")).toBe(Buffer.from(expected).toString("hex"));
    }
  });

  it("covers every kind of field an answer has", () => {
    const kinds = new Set(rpcs.flatMap(({ operation }) => schema.messages[operation.output]!.fields.map((f) => `${f.kind}${f.list ? "[]" : ""}`)));
    expect([...kinds].sort()).toEqual(expect.arrayContaining(["bool", "enum", "enum[]", "int64", "message", "message[]", "string", "string[]"]));
  });
});
