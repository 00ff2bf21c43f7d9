import { z } from 'zod';
import { policySchema } from './schema.js';

/** JSON Schema of .ctm.json, generated from the same zod schema that validates it. */
export function policyJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(policySchema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  return { ...schema, title: 'land policy (.ctm.json)' };
}
