// The bounds of a log's size cap (policy `logs.maxBytes`): the config schema checks them, the
// gates' log writer (lib/landing/gates/logCap.ts) applies them.

export const DEFAULT_LOG_MAX_BYTES = 10 * 1024 * 1024;
export const MIN_LOG_MAX_BYTES = 64 * 1024;
export const MAX_LOG_MAX_BYTES = 1024 * 1024 * 1024;
