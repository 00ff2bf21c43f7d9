import { git } from './run.js';

export interface CommitIdentity {
  name: string;
  email: string;
}

/**
 * Writes a commit object for `tree` with the given parents. The message goes through stdin
 * (`-F -`): git commit-tree without -m/-F would wait on stdin forever.
 */
export async function commitTree(cwd: string, tree: string, parents: readonly string[], message: string, identity?: CommitIdentity): Promise<string> {
  const args = ['commit-tree', tree];
  for (const parent of parents) args.push('-p', parent);
  args.push('-F', '-');
  const env = identity
    ? {
        GIT_AUTHOR_NAME: identity.name,
        GIT_AUTHOR_EMAIL: identity.email,
        GIT_COMMITTER_NAME: identity.name,
        GIT_COMMITTER_EMAIL: identity.email,
      }
    : undefined;
  return git(cwd, args, { input: message.endsWith('\n') ? message : `${message}\n`, env });
}
