import type { Command } from 'commander';

// `land ledger show|verify` (Step 4).
export function registerLedger(_program: Command): void {}
