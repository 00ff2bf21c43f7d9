// Which branch `land init` writes as the target when none is named, and what a clone without it is told.
import { describe, expect, it } from 'vitest';
import { type BranchFacts, chooseInitTarget } from '../../lib/config/initTarget.js';
import { missingTargetHint } from '../../lib/config/load.js';

const none: BranchFacts = { originDefault: null, current: null, hasMain: false, hasMaster: false };

describe('chooseInitTarget', () => {
  it("takes origin's default branch over everything else", () => {
    expect(chooseInitTarget({ originDefault: 'trunk', current: 'master', hasMain: true, hasMaster: true })).toEqual({
      target: 'trunk',
      why: "origin's default branch",
    });
  });

  it('takes a checked-out master (the repository the issue met) and a checked-out main', () => {
    expect(chooseInitTarget({ ...none, current: 'master', hasMaster: true }).target).toBe('master');
    expect(chooseInitTarget({ ...none, current: 'main', hasMain: true, hasMaster: true }).target).toBe('main');
    expect(chooseInitTarget({ ...none, current: 'master', hasMain: true, hasMaster: true }).target).toBe('master');
  });

  it('from a feature branch, the local main, else the local master', () => {
    expect(chooseInitTarget({ ...none, current: 'feature/x', hasMain: true, hasMaster: true })).toEqual({ target: 'main', why: 'the local main branch' });
    expect(chooseInitTarget({ ...none, current: 'feature/x', hasMaster: true })).toEqual({ target: 'master', why: 'the local master branch' });
  });

  it('a trunk with another name: the checked-out branch; nothing at all: main', () => {
    expect(chooseInitTarget({ ...none, current: 'develop' })).toEqual({ target: 'develop', why: 'the checked-out branch' });
    expect(chooseInitTarget(none).target).toBe('main');
  });
});

describe('missingTargetHint', () => {
  it("names origin's default branch when it is another (a fresh clone of a master repository), else the generic fix", () => {
    expect(missingTargetHint('main', 'master')).toBe(
      "origin's default branch is master: `git config land.target master` in this clone (or LAND_TARGET=master, --target master)",
    );
    expect(missingTargetHint('main', 'main')).toBe('create it, or name another with `git config land.target <branch>`');
    expect(missingTargetHint('main', null)).toBe('create it, or name another with `git config land.target <branch>`');
  });
});
