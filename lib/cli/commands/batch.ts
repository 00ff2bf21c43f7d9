import type { Command } from 'commander';

// `land batch`: the ledger-enforcing batch wrapper (Step 4). Filled in by lib/ledger.
export function registerBatch(_program: Command): void {}
