// The keys a strict object of the policy schema accepts at a given path of a parsed value
// (`["gates", 0]` → the gate keys), for "did you mean ...?" on an unknown key.
import { z } from 'zod';

type Schema = z.core.$ZodType;

/** The schema under its wrappers (`.default()`, `.prefault()`, `.optional()`). */
function unwrap(schema: Schema): Schema {
  let current = schema;
  for (;;) {
    if (current instanceof z.core.$ZodDefault || current instanceof z.core.$ZodPrefault || current instanceof z.core.$ZodOptional) {
      current = current._zod.def.innerType;
    } else {
      return current;
    }
  }
}

/** The schemas a value at `key` inside a value of `schema` may have (several through a union). */
function childSchemas(schema: Schema, key: PropertyKey): Schema[] {
  const inner = unwrap(schema);
  if (inner instanceof z.core.$ZodObject) {
    const child = typeof key === 'string' ? inner._zod.def.shape[key] : undefined;
    return child ? [child] : [];
  }
  if (inner instanceof z.core.$ZodArray) return typeof key === 'number' ? [inner._zod.def.element] : [];
  if (inner instanceof z.core.$ZodRecord) return typeof key === 'string' ? [inner._zod.def.valueType] : [];
  if (inner instanceof z.core.$ZodUnion) return inner._zod.def.options.flatMap((option) => childSchemas(option, key));
  return [];
}

/** The known keys of the object at `path` (in schema order), or [] when no object is there. */
export function knownKeysAt(root: Schema, path: readonly PropertyKey[]): string[] {
  let schemas = [root];
  for (const key of path) schemas = schemas.flatMap((schema) => childSchemas(schema, key));
  const keys = new Set<string>();
  for (const schema of schemas) {
    const inner = unwrap(schema);
    if (inner instanceof z.core.$ZodObject) for (const key of Object.keys(inner._zod.def.shape)) keys.add(key);
  }
  return [...keys];
}
