// The CLI, bundled (by scripts/bundle.mjs, which `npm run build` runs: quiet, unlike `rolldown -c`):
// tsc's dist/bin/land.js and everything it imports (land's modules, commander, zod,
// proper-lockfile, picocolors) into dist/bin/land.js plus chunks in dist/bin/chunks/. The entry is
// tiny (it answers `land --version` alone); the rest is split where lib/cli/program.ts imports a
// command's module dynamically, so a command loads only its own code and the chunks it shares with
// others (docs/development.md, start-up). Node reads a few files instead of a few hundred.
// dist/lib/ stays as tsc wrote it, for the tests and the benchmark that import modules directly.
import { rmSync } from 'node:fs';
import { defineConfig } from 'rolldown';

// Chunk names carry no hash, so a rebuild overwrites them; a chunk a previous build made and this
// one does not is removed here, before the build writes its own.
rmSync('dist/bin/chunks', { recursive: true, force: true });

export default defineConfig({
  input: 'dist/bin/land.js',
  platform: 'node',
  // land's own modules (dist/lib/) run nothing at import that another module relies on: a module
  // only declares (functions, constants, zod schemas). So a command's chunk need not load a module
  // whose exports it never uses, even when a barrel (lib/store/index.ts) re-exports it: `land status`
  // then does not build the ledger's, journal's or gates' schemas (docs/development.md, start-up).
  // Other modules keep their own declaration (zod's package.json says it has none), as before.
  treeshake: { moduleSideEffects: (id) => (id.includes('/dist/lib/') ? false : undefined) },
  output: {
    dir: 'dist/bin',
    format: 'esm',
    sourcemap: true,
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name].js',
  },
});
