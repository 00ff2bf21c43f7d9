// land's version, the one `land --version` prints. It must equal package.json's "version"
// (test/cli/startup.test.ts checks): kept here, not read from package.json, so that answering
// `land --version` reads no file and loads no other module (see docs/development.md, start-up).
export const VERSION = '0.1.0';
