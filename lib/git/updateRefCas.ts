import { revParse } from './revParse.js';
import { GitError, runGit } from './run.js';

export type CasResult = { kind: 'updated' } | { kind: 'lost'; actual: string | null };

/**
 * Compare-and-swap of a ref: moves `ref` to `next` only if it still points at `expected`.
 * git exits 128 on a mismatch ("is at X but expected Y"); that is reported as `lost` with the
 * value the ref holds now. Any other failure (a hook refusing, a bad object) is thrown.
 */
export async function updateRefCas(
  cwd: string,
  ref: string,
  next: string,
  expected: string,
  opts: { env?: Record<string, string>; message?: string } = {},
): Promise<CasResult> {
  const args = ['update-ref'];
  if (opts.message) args.push('-m', opts.message);
  args.push('--end-of-options', ref, next, expected);
  const result = await runGit(cwd, args, { okCodes: [128, 1], env: opts.env });
  if (result.code === 0) return { kind: 'updated' };
  const actual = await revParse(cwd, ref);
  if (actual !== expected) return { kind: 'lost', actual };
  // The ref still holds `expected`, so the refusal came from something else (a hook, a lock).
  throw new GitError(args, result);
}
