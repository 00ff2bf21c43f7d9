// land doctor's lines about the executors.
import { describe, expect, it } from 'vitest';
import { describeExecutors } from '../../../lib/landing/executors/probe.js';

describe('describeExecutors', () => {
  it('gives one line per executor, with what it answered or why it is down', () => {
    expect(describeExecutors([{ name: 'local', slots: 1, dir: null, ok: true, detail: 'this machine' }])).toEqual([
      'executors:',
      '  ok   local (1 slot): this machine',
    ]);
    expect(
      describeExecutors([
        { name: 'ssh://ci@b1', slots: 2, dir: '/var/tmp/land', ok: true, detail: 'git version 2.39.2' },
        { name: 'ssh://ci@b2', slots: 1, dir: '/srv/land', ok: false, detail: 'unreachable: Connection refused' },
      ]),
    ).toEqual([
      'executors:',
      '  ok   ssh://ci@b1 (2 slots, /var/tmp/land): git version 2.39.2',
      '  DOWN ssh://ci@b2 (1 slot, /srv/land): unreachable: Connection refused',
    ]);
  });
});
