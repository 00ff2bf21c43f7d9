// The hand-written glob matcher of gates[].paths and refresh[].paths.
import { describe, expect, it } from 'vitest';
import { anyPathMatches, matchGlob, matchingPaths } from '../../../lib/landing/plan/glob.js';

describe('matchGlob', () => {
  it('* stays within one segment', () => {
    expect(matchGlob('a.md', '*.md')).toBe(true);
    expect(matchGlob('docs/a.md', '*.md')).toBe(false);
    expect(matchGlob('src/a.ts', 'src/*.ts')).toBe(true);
    expect(matchGlob('src/x/a.ts', 'src/*.ts')).toBe(false);
    expect(matchGlob('src/.hidden.ts', 'src/*.ts')).toBe(true);
    expect(matchGlob('src/a.tsx', 'src/*.ts')).toBe(false);
    expect(matchGlob('lib/foo-bar/x.js', 'lib/foo-*/x.js')).toBe(true);
  });

  it('? is one character within a segment', () => {
    expect(matchGlob('a1.txt', 'a?.txt')).toBe(true);
    expect(matchGlob('a12.txt', 'a?.txt')).toBe(false);
    expect(matchGlob('a/.txt', 'a?.txt')).toBe(false);
  });

  it('** spans zero or more segments', () => {
    expect(matchGlob('a.md', '**/*.md')).toBe(true);
    expect(matchGlob('docs/x/y/a.md', '**/*.md')).toBe(true);
    expect(matchGlob('docs/a.txt', '**/*.md')).toBe(false);
    expect(matchGlob('a/b', 'a/**/b')).toBe(true);
    expect(matchGlob('a/x/y/b', 'a/**/b')).toBe(true);
    expect(matchGlob('a/x/y/c', 'a/**/b')).toBe(false);
    expect(matchGlob('anything/at/all', '**')).toBe(true);
  });

  it('docs/** is everything under docs, not docs itself nor docs-site', () => {
    expect(matchGlob('docs/a.md', 'docs/**')).toBe(true);
    expect(matchGlob('docs/x/y.png', 'docs/**')).toBe(true);
    expect(matchGlob('docs', 'docs/**')).toBe(false);
    expect(matchGlob('docs-site/a.md', 'docs/**')).toBe(false);
  });

  it('a plain pattern names a file or a folder with everything under it', () => {
    expect(matchGlob('package.json', 'package.json')).toBe(true);
    expect(matchGlob('sub/package.json', 'package.json')).toBe(false);
    expect(matchGlob('package.jsonx', 'package.json')).toBe(false);
    expect(matchGlob('docs/a.md', 'docs')).toBe(true);
    expect(matchGlob('docs', 'docs')).toBe(true);
    expect(matchGlob('docsy/a.md', 'docs')).toBe(false);
    expect(matchGlob('docs/a.md', 'docs/')).toBe(true);
    expect(matchGlob('docs', 'docs/')).toBe(false);
    expect(matchGlob('docs/a.md', './docs')).toBe(true);
  });

  it('treats regular-expression characters and brackets literally', () => {
    expect(matchGlob('a+b(1).txt', 'a+b(1).txt')).toBe(true);
    expect(matchGlob('aab1.txt', 'a+b(1).txt')).toBe(false);
    expect(matchGlob('[x].md', '[x].md')).toBe(true);
    expect(matchGlob('x.md', '[x].md')).toBe(false);
    expect(matchGlob('a.b', 'a.b')).toBe(true);
    expect(matchGlob('axb', 'a.b')).toBe(false);
  });
});

describe('path lists', () => {
  it('anyPathMatches and matchingPaths', () => {
    const changed = ['src/a.ts', 'docs/guide.md', 'package.json'];
    expect(anyPathMatches(changed, ['docs/**'])).toBe(true);
    expect(anyPathMatches(changed, ['bench/**', '*.lock'])).toBe(false);
    expect(matchingPaths(changed, ['src/**', 'package.json'])).toEqual(['src/a.ts', 'package.json']);
    expect(anyPathMatches([], ['**'])).toBe(false);
  });
});
