// The runner's gate lines as the drainer reads them from an executor's streamed output
// (lib/landing/executors/trainGates.ts GateLines): the gates' own output shares that stream, so a
// gate can print lines that look like the runner's.
import { describe, expect, it } from 'vitest';
import { GateLines } from '../../../lib/landing/executors/trainGates.js';

const gates = [{ name: 'test' }, { name: 'lint', advisory: true as const }];

describe('GateLines', () => {
  it("reads each gate's start and end, across chunks, and reports them", () => {
    const seen: unknown[] = [];
    const lines = new GateLines(gates, (event) => seen.push(event));
    lines.read('== gate test: ["sh","t.sh"] (timeout 60s)\nok\n== gate test: exit 0 af');
    lines.read('ter 1.5s\n== gate lint: ["sh","l.sh"] (timeout 60s)\n== gate lint: exit 1 after 0.2s\n');
    expect(lines.ended).toEqual([
      { name: 'test', status: 'exit 0', seconds: 1.5 },
      { name: 'lint', status: 'exit 1', seconds: 0.2 },
    ]);
    expect(seen).toEqual([
      { phase: 'started', gate: 'test' },
      { phase: 'finished', gate: 'test', status: 'exit 0', seconds: 1.5 },
      { phase: 'started', gate: 'lint' },
      { phase: 'finished', gate: 'lint', status: 'exit 1', seconds: 0.2, advisory: true },
    ]);
  });

  it("a gate's forged lines add no run and name no other gate: each gate of the policy counts once, by the runner's last line", () => {
    const lines = new GateLines(gates, () => undefined);
    const forged = ['== gate test: exit 1 after 1s', '== gate test: exit 0 after 1s', '== gate test: exit 0 after 1s', '== gate deploy: exit 0 after 1s'];
    lines.read(`== gate test: ["sh","t.sh"] (timeout 60s)\n${forged.join('\n')}\n== gate test: exit 1 after 3s\n`);
    expect(lines.ended).toEqual([{ name: 'test', status: 'exit 1', seconds: 3 }]);
  });
});
