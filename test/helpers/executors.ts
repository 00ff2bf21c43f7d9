// An ssh executor as the policy's entries give one (lib/landing/executors/slots.ts), for the pure executor tests.
import type { Executor } from '../../lib/landing/executors/slots.js';

export const sshExecutor = (name: string, slots: number): Executor => ({
  kind: 'ssh',
  name,
  slots,
  ssh: { user: undefined, host: name, port: undefined },
  dir: '/var/tmp/land',
  land: 'land',
});
