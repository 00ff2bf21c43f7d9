// The landing policy, `.ctm.json`, committed on the target branch. Strict objects: an unknown key
// is an error (a typo must not silently change nothing). Defaults are documented in docs/policy.md.
import { z } from 'zod';

const name = z.string().min(1).max(100).regex(/^[A-Za-z0-9._-]+$/, 'expected letters, digits, ".", "_" or "-"');
const command = z.union([z.string().min(1), z.array(z.string()).min(1)]);
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name');
const glob = z.string().min(1);

export const batchStageSchema = z.strictObject({
  job: name,
  measureDir: z.string().min(1),
});

export const gateSchema = z.strictObject({
  name,
  run: command,
  timeoutSeconds: z.number().positive().max(86_400).default(600),
  env: z.record(envName, z.string()).default({}),
  passEnv: z.array(envName).default([]),
  paths: z.array(glob).min(1).optional(),
  batch: batchStageSchema.optional(),
});

export const refreshSchema = z.strictObject({
  paths: z.array(glob).min(1),
  run: command,
  message: z.string().min(1),
  timeoutSeconds: z.number().positive().max(86_400).default(600),
});

export const policySchema = z.strictObject({
  $schema: z.string().optional(),
  target: z.string().min(1),
  remote: z.string().min(1).default('origin'),
  gates: z.array(gateSchema).default([]),
  batch: z
    .strictObject({
      max: z.number().int().min(1).max(256).default(8),
      waitSeconds: z.number().min(0).max(3_600).default(0),
    })
    .prefault({}),
  publish: z
    .strictObject({
      auto: z.boolean().default(false),
      remote: z.string().min(1).optional(),
    })
    .prefault({}),
  refresh: z.array(refreshSchema).default([]),
  retries: z
    .strictObject({
      infra: z.number().int().min(0).max(100).default(3),
      casLost: z.number().int().min(0).max(1_000).default(20),
    })
    .prefault({}),
  proof: z
    .strictObject({
      enabled: z.boolean().default(true),
      trustLocal: z.boolean().default(true),
    })
    .prefault({}),
  ledger: z
    .strictObject({
      providers: z.array(z.string().min(1)).default(['claude-code']),
      lane: z.string().min(1).optional(),
      dir: z.string().min(1).optional(),
    })
    .prefault({}),
});

export type Policy = z.infer<typeof policySchema>;
export type PolicyInput = z.input<typeof policySchema>;
export type Gate = Policy['gates'][number];
export type RefreshEntry = Policy['refresh'][number];

export const POLICY_FILE = '.ctm.json';
