// `npm run build`'s second step: bundle the CLI with rolldown.config.mjs through rolldown's API.
// rolldown's command line prints every chunk it writes on stdout (its --logLevel does not quiet
// that list), which landed in front of `npm run demo` and `npm run bench -- --json`. The API prints
// nothing but rolldown's warnings (stderr); a failed build throws, and Node exits non-zero with the error.
import { build } from 'rolldown';
import config from '../rolldown.config.mjs';

await build(config);
