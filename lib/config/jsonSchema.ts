import { z } from 'zod';
import { policySchema } from './schema.js';

/** JSON Schema of .ctm.json, generated from the same zod schema that validates it. */
export function policyJsonSchema(): z.core.JSONSchema.BaseSchema {
  return { ...z.toJSONSchema(policySchema, { io: 'input', target: 'draft-2020-12' }), title: 'land policy (.ctm.json)' };
}
