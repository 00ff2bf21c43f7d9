// `.land/lane.local.json` at the repository root (ignored by git): this machine's way to reach its
// build lane. { "ssh": "host", "dir": "/repo/on/lane", "node": "node", "land": "/path/to/land.js" }
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

export const LANE_FILE = join('.land', 'lane.local.json');

const laneFileSchema = z.strictObject({
  ssh: z.string().min(1),
  dir: z.string().min(1),
  node: z.string().min(1).optional(),
  land: z.string().min(1).optional(),
});

export type LaneFileContent = z.infer<typeof laneFileSchema>;

export type LaneFileRead = { kind: 'absent' } | { kind: 'ok'; path: string; lane: LaneFileContent } | { kind: 'invalid'; path: string; problem: string };

export function readLaneFile(root: string): LaneFileRead {
  const path = join(root, LANE_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
    return { kind: 'invalid', path, problem: (error as Error).message };
  }
  try {
    const parsed = laneFileSchema.safeParse(JSON.parse(text));
    if (parsed.success) return { kind: 'ok', path, lane: parsed.data };
    const problem = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
    return { kind: 'invalid', path, problem };
  } catch (error) {
    return { kind: 'invalid', path, problem: `not valid JSON: ${(error as Error).message}` };
  }
}
