// The enums pass: each enum of the manifest with its values' proto names and locked numbers. Proto
// enum values share one scope per package, so a value's proto name is checked against every enum's.
import { assignNumbers } from "../../load/lock.js";
import { upperSnakeCase } from "../naming.js";
import type { IrEnum } from "../ir.js";
import type { IrContext } from "./context.js";

/** Sets context.enums, adding new values' numbers to the lock. */
export function resolveEnums(context: IrContext): void {
  const { raw, report, nextLock } = context;
  /** Proto value name -> the enum that declares it. */
  const enumValueOwners = new Map<string, string>();
  context.enums = Object.entries(raw.enums ?? {}).map(([name, rawEnum]): IrEnum => {
    // A value is a name, or a name with its description, or with a description and a deprecation.
    const entries: [string, { description?: string; deprecated?: string }][] = Array.isArray(rawEnum.values)
      ? rawEnum.values.map((v) => [v, {}])
      : Object.entries(rawEnum.values).map(([v, spec]) => [v, typeof spec === "string" ? { description: spec } : spec]);
    const prefix = upperSnakeCase(name);
    const { numbers, reserved } = assignNumbers(
      (nextLock.enums[name] ??= {}),
      entries.map(([v]) => v),
    );
    const protoNames = new Map<string, string>();
    const values = entries.map(([value, { description = "", deprecated }], index) => {
      const valuePath = ["enums", name, "values", Array.isArray(rawEnum.values) ? index : value];
      const protoName = `${prefix}_${upperSnakeCase(value)}`;
      const clash = protoNames.get(protoName);
      if (clash !== undefined) {
        report("proto-name-clash", valuePath, `enum '${name}'`, `values '${clash}' and '${value}' both become ${protoName} in proto; rename one`);
      } else if (protoName === `${prefix}_UNSPECIFIED`) {
        report("proto-zero-value-name", valuePath, `enum '${name}'`, `value '${value}' becomes ${protoName} in proto, the name of the zero value; rename it`);
      } else {
        const other = enumValueOwners.get(protoName);
        if (other !== undefined) {
          report(
            "proto-name-clash",
            valuePath,
            `enum '${name}'`,
            `value '${value}' becomes ${protoName} in proto, which enum '${other}' already declares (proto enum values share one scope); rename one`,
          );
        }
        enumValueOwners.set(protoName, name);
      }
      protoNames.set(protoName, value);
      if (["true", "false", "null"].includes(value)) {
        report("graphql-reserved-name", valuePath, `enum '${name}'`, `'${value}' cannot be an enum value in GraphQL; rename it`);
      }
      return { name: value, description, protoName, protoNumber: numbers.get(value)!, ...(deprecated !== undefined ? { deprecated } : {}) };
    });
    return {
      name,
      description: rawEnum.description ?? "",
      values,
      reserved: reserved.map((r) => ({ ...r, protoName: `${prefix}_${upperSnakeCase(r.name)}` })),
      protoZeroName: `${prefix}_UNSPECIFIED`,
      protoFile: context.proto.typesFile,
      position: context.loaded.locate(["enums", name], "key"),
    };
  });
}

/** The value names of an enum resolved by resolveEnums; undefined for a name that is no enum. */
export function enumValuesOf(context: IrContext, name: string): string[] | undefined {
  return context.enums.find((e) => e.name === name)?.values.map((v) => v.name);
}
