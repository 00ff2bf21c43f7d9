// zod compiles a parser for an object schema the first time it parses with it (generated code,
// compiled by V8): worth it for a schema parsed many times (job records, journal lines), pure cost
// for one parsed once per command. The policy's schemas are of the second kind: a parse with this
// context skips the compile (zod's documented `jitless` option; the result is the same), which
// saved about a tenth of `land status`'s own start-up (docs/development.md, start-up).
export const PARSED_ONCE = { jitless: true } as const;
