import { join } from 'node:path';
import { commonDir } from '../git/index.js';
import { FileStore } from './fileStore.js';

export { FileStore } from './fileStore.js';
export type { CorruptRecord, JobListing, JobRead } from './fileStore.js';
export { assertSafeId } from './paths.js';
export { appendJsonLine, readJsonLines, countLines } from './jsonl.js';
export type { JsonLines } from './jsonl.js';
export { writeJsonAtomic, writeFileAtomic, ensureDir } from './atomic.js';
export type { DrainLease } from './lock.js';
export type { TokenRecord } from './landingToken.js';
export type { WaitForChangeOptions, WaitOutcome } from './watch.js';
export * from './schemas.js';
export * from './recordParts.js';
export * from './activeIndex.js';

/** The store of the repository that contains `cwd`: `<git common dir>/land/`. */
export async function openStore(cwd: string): Promise<FileStore> {
  const store = new FileStore(join(await commonDir(cwd), 'land'));
  store.ensure();
  return store;
}
