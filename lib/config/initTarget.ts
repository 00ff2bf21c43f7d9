// Which branch `land init` writes as the target when the user named none (docs/commands.md#land-init).
import { DEFAULT_TARGET } from './load.js';

/** What `land init` knows of the repository's branches. */
export interface BranchFacts {
  /** The branch `origin`'s HEAD names (the remote's default branch), or null. */
  originDefault: string | null;
  /** The checked-out branch, or null on a detached HEAD. */
  current: string | null;
  /** Whether a local `main` / `master` branch exists. */
  hasMain: boolean;
  hasMaster: boolean;
}

export interface InitTarget {
  target: string;
  /** Why this branch, for the line init prints: "origin's default branch". */
  why: string;
}

const USUAL = ['main', 'master'];

/**
 * The remote's default branch (what a team lands on), else the checked-out branch when it is `main`
 * or `master`, else a local `main`, else a local `master` (init run from a feature branch), else the
 * checked-out branch (a repository whose trunk has another name), else `main`.
 */
export function chooseInitTarget(facts: BranchFacts): InitTarget {
  if (facts.originDefault !== null) return { target: facts.originDefault, why: "origin's default branch" };
  if (facts.current !== null && USUAL.includes(facts.current)) return { target: facts.current, why: 'the checked-out branch' };
  if (facts.hasMain) return { target: 'main', why: 'the local main branch' };
  if (facts.hasMaster) return { target: 'master', why: 'the local master branch' };
  if (facts.current !== null) return { target: facts.current, why: 'the checked-out branch' };
  return { target: DEFAULT_TARGET, why: 'the default; no branch found' };
}
