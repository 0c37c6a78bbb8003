// The gRPC port's answer encoder makes the very bytes protobuf-es does, for every answer of every
// RPC of the identity API and the bookstore (which has every other field kind): every field set,
// every field unset, zero values, and values at the edges.
import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { AdminService } from "../../generated/proto/identity/v1/admin_service_pb.js";
import { UserService } from "../../generated/proto/identity/v1/user_service_pb.js";
import { StoreService } from "../../examples/bookstore/generated/proto/bookstore/v1/user_service_pb.js";
import { schema as bookstoreSchema } from "../../examples/bookstore/generated/schema.js";
import { schema as identitySchema } from "../../generated/schema.js";
import { mapValueField, type ApiSchema, type FieldSpec } from "../../runtime/schema.js";
import { answerEncoder } from "../../runtime/server/answer-encoder.js";
import { rpcMethods } from "../../runtime/server/rpc.js";
import { normalizeMessage, toProtoInit } from "../../runtime/shape.js";

type Plain = Record<string, unknown>;
type Variant = "zero" | "edge";

function value(schema: ApiSchema, field: FieldSpec, variant: Variant, depth: number): unknown {
  switch (field.kind) {
    case "string":
      return variant === "zero" ? "" : "ünïcode ✓ \u0000 end";
    case "bool":
      return variant !== "zero";
    case "int32":
      return variant === "zero" ? 0 : -(2 ** 31);
    case "int64":
      return variant === "zero" ? 0 : Number.MAX_SAFE_INTEGER;
    case "uint32":
      return variant === "zero" ? 0 : 2 ** 32 - 1;
    case "uint64":
      return variant === "zero" ? "0" : "18446744073709551615";
    case "float32":
      return variant === "zero" ? 0 : -3.4028234663852886e38;
    case "float64":
      return variant === "zero" ? 0 : -1.5e300;
    case "timestamp":
      return variant === "zero" ? "1970-01-01T00:00:00Z" : depth % 2 ? "0001-01-01T00:00:00Z" : "9999-12-31T23:59:59.999999999Z";
    case "date":
      return variant === "zero" ? "0001-01-01" : "9999-12-31";
    case "duration":
      return variant === "zero" ? "0s" : depth % 2 ? "-315576000000.999999999s" : "315576000000.5s";
    case "bytes":
      return variant === "zero" ? "" : "AP8Aqg==";
    case "int64_string":
      return variant === "zero" ? "0" : depth % 2 ? "-9223372036854775808" : "9223372036854775807";
    case "map": {
      if (field.value === undefined) return variant === "zero" ? {} : { a: "1", "": "", ключ: "значение" };
      // map<V>: its values as single fields of V, the zero value among them.
      const item = (of: Variant) => value(schema, mapValueField(field), of, depth);
      return variant === "zero" ? {} : { a: item("edge"), "": item("zero"), ключ: item("edge") };
    }
    case "json":
      return variant === "zero" ? {} : { nested: { list: [1, "two", null, true] }, n: 2.5 };
    case "enum": {
      const names = Object.keys(schema.enums[field.ref!]!.values);
      return variant === "zero" ? names[0] : names.at(-1);
    }
    case "message":
      return depth > 3 ? null : message(schema, field.ref!, variant, depth + 1);
  }
}

function message(schema: ApiSchema, name: string, variant: Variant, depth = 0): Plain {
  const result: Plain = {};
  const spec = schema.messages[name]!;
  // A union answers exactly one variant: the last in the zero sample, the first in the edge one.
  const fields = spec.oneOf ? [variant === "zero" ? spec.fields.at(-1)! : spec.fields[0]!] : spec.fields;
  for (const field of fields) {
    const item = value(schema, field, variant, depth);
    result[field.name] = field.list ? (variant === "zero" ? [item] : [item, item]) : item;
  }
  return result;
}

const rpcs = [
  ...rpcMethods(identitySchema, [AdminService, UserService]).map((rpc) => ({ ...rpc, schema: identitySchema as ApiSchema })),
  ...rpcMethods(bookstoreSchema, [StoreService]).map((rpc) => ({ ...rpc, schema: bookstoreSchema as ApiSchema })),
];

describe("the answer encoder", () => {
  it.each(rpcs.map((rpc) => [rpc.path, rpc] as const))("writes the bytes protobuf-es writes for %s", (_path, { method, operation, schema }) => {
    const encode = answerEncoder(schema, operation.output, method.output);
    const samples = [message(schema, operation.output, "edge"), message(schema, operation.output, "zero"), normalizeMessage(schema, operation.output, {})];
    for (const sample of samples) {
      const expected = toBinary(method.output, create(method.output, toProtoInit(schema, operation.output, sample) as never));
      expect(Buffer.from(encode(sample)).toString("hex")).toBe(Buffer.from(expected).toString("hex"));
    }
  });

  it("covers every kind of field an answer has", () => {
    const kinds = new Set(rpcs.flatMap(({ operation, schema }) => schema.messages[operation.output]!.fields.map((f) => `${f.kind}${f.list ? "[]" : ""}`)));
    expect([...kinds].sort()).toEqual(
      expect.arrayContaining(["bool", "bytes", "date", "duration", "enum", "enum[]", "float32", "int64", "message", "message[]", "string", "string[]", "timestamp", "uint32", "uint64"]),
    );
  });
});
