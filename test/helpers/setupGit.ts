// vitest setupFiles: git housekeeping off for every git process of the test file (test/helpers/gitSettings.ts).
import { gitConfigEnv } from './gitSettings.js';

Object.assign(process.env, gitConfigEnv());
