// Which boot of the machine this is. Data written without fsync survives a killed process (it is
// in the page cache) and is lost only when the machine itself stops: a power cut or a crash of the
// kernel, after which it boots again with a new id. So a record written without fsync can be stale
// only when the boot id changed since it was written (lib/queue/unsyncedWrites.ts).
import { readFileSync } from 'node:fs';

/** For tests: a boot id to use instead of the kernel's (a test "reboots" by changing it). */
export const BOOT_ID_ENV = 'LAND_BOOT_ID';

/** The kernel's id of this boot (Linux); null where there is none, and then records stay fsynced. */
export function currentBootId(): string | null {
  const forced = process.env[BOOT_ID_ENV];
  if (forced) return forced;
  try {
    const id = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return id === '' ? null : id;
  } catch {
    return null;
  }
}
