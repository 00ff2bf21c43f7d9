// vitest setupFiles: git housekeeping off for every git process of the test file (test/helpers/gitSettings.ts),
// and with LAND_TEST_CPU_LOG set, each file's wall and CPU time written down (test/helpers/cpuLog.ts).
import { logCpuPerFile } from './cpuLog.js';
import { gitConfigEnv } from './gitSettings.js';

Object.assign(process.env, gitConfigEnv());
if (process.env.LAND_TEST_CPU_LOG) logCpuPerFile(process.env.LAND_TEST_CPU_LOG);
