// Git settings for every git process the tests start, directly or through the CLI (vitest's
// setupFiles: each test file's worker sets them in its environment, which children inherit). They
// only keep git from doing housekeeping nobody asked for, which costs CPU in a suite that runs git
// tens of thousands of times; nothing a test checks depends on them:
//   maintenance.auto=false  no `git maintenance run --auto` process after each commit, merge, fetch
//   gc.auto=0               no automatic gc
//   receive.autogc=false    no `git gc --auto` process after each push a test server receives
//   core.fsync=none         no fsync: a test's repository never has to survive a machine crash
// A server reached over ssh (sshd does not pass this environment on) gets the same settings in its
// own config (test/helpers/remoteTeam.ts).
export const TEST_GIT_SETTINGS: Readonly<Record<string, string>> = {
  'maintenance.auto': 'false',
  'gc.auto': '0',
  'receive.autogc': 'false',
  'core.fsync': 'none',
};

/** GIT_CONFIG_COUNT/KEY_n/VALUE_n for `settings` (git's "command line" settings from the environment). */
export function gitConfigEnv(settings: Readonly<Record<string, string>> = TEST_GIT_SETTINGS): Record<string, string> {
  const entries = Object.entries(settings);
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(entries.length) };
  for (const [i, [key, value]] of entries.entries()) {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  }
  return env;
}

/** The same settings as config-file lines, for a repository's own config. */
export function gitConfigLines(settings: Readonly<Record<string, string>> = TEST_GIT_SETTINGS): string {
  return Object.entries(settings)
    .map(([key, value]) => {
      const dot = key.lastIndexOf('.');
      return `[${key.slice(0, dot)}]\n\t${key.slice(dot + 1)} = ${value}\n`;
    })
    .join('');
}
