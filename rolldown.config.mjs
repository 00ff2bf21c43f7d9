// The CLI as one file: tsc's dist/bin/land.js and everything it imports (land's modules, commander,
// zod, proper-lockfile, picocolors) bundled into dist/bin/land.js. Node then reads one file instead
// of a few hundred, which takes about 40% off every command's start-up (npm run bench, startup).
// dist/lib/ stays as tsc wrote it, for the tests and the benchmark that import modules directly.
import { defineConfig } from 'rolldown';

export default defineConfig({
  input: 'dist/bin/land.js',
  platform: 'node',
  output: { file: 'dist/bin/land.js', format: 'esm', sourcemap: true },
});
