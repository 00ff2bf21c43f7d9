// A fast check generated from a zod schema's shape, for readers of many rows (`land stats` over
// 10,000 metrics rows): each top-level field's type checked by a plain predicate built once from
// the schema, instead of zod's parse of every row (a few milliseconds instead of ~100). The
// predicate covers the field's JSON type: strings, numbers, booleans, null, literals, enums,
// arrays of those, and unions; an object is only checked to be an object (its fields are read
// leniently where they are used). test/store/formats/formats.unit.test.ts proves it agrees with the schema.
import type { z } from 'zod';
import { isRecord } from './isRecord.js';

export type FieldCheck = (value: unknown) => boolean;

/** The minimal view of a zod 4 schema's definition that the generator reads. */
interface Def {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  options?: readonly z.ZodType[];
  entries?: Record<string, string | number>;
  values?: readonly unknown[];
}

function defOf(schema: z.ZodType): Def {
  return schema.def as Def;
}

/** The predicate for one field's schema; throws for a kind it cannot check (so a new field is noticed). */
export function fieldCheckOf(schema: z.ZodType): FieldCheck {
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
      return (v) => typeof v === 'string';
    case 'number':
      return (v) => typeof v === 'number' && Number.isFinite(v);
    case 'boolean':
      return (v) => typeof v === 'boolean';
    case 'null':
      return (v) => v === null;
    case 'unknown':
      return () => true;
    case 'literal': {
      const values = def.values ?? [];
      return (v) => values.includes(v);
    }
    case 'enum': {
      const values = new Set<unknown>(Object.values(def.entries ?? {}));
      return (v) => values.has(v);
    }
    case 'optional': {
      const inner = fieldCheckOf(def.innerType as z.ZodType);
      return (v) => v === undefined || inner(v);
    }
    case 'nullable': {
      const inner = fieldCheckOf(def.innerType as z.ZodType);
      return (v) => v === null || inner(v);
    }
    case 'array': {
      const element = fieldCheckOf(def.element as z.ZodType);
      return (v) => Array.isArray(v) && v.every(element);
    }
    case 'union': {
      const options = (def.options ?? []).map(fieldCheckOf);
      return (v) => options.some((check) => check(v));
    }
    case 'object':
    case 'record':
      return isRecord;
    default:
      throw new Error(`fieldCheckOf: no fast check for a zod ${def.type}`);
  }
}

/**
 * `object[key]` when it passes its field's check from `checks` (generated from the schema whose
 * inferred type is `T`), else undefined: for readers of a few fields of rows of any version, which
 * keep a row whose other fields are of another shape. An object-valued field is only checked to
 * be an object: read its fields the same way.
 */
export function checkedField<T, K extends keyof T & string>(
  checks: Readonly<Record<string, FieldCheck>>,
  object: Record<string, unknown>,
  key: K,
): T[K] | undefined {
  const value = object[key];
  // The check was generated from the schema T is inferred from (fieldCheckOf): it narrows as parse would.
  return checks[key]?.(value) ? (value as T[K]) : undefined;
}

/** One predicate per top-level field of an object schema. */
export function fieldChecksOf(shape: Record<string, z.ZodType>): Record<string, FieldCheck> {
  return Object.fromEntries(Object.entries(shape).map(([key, schema]) => [key, fieldCheckOf(schema)]));
}
