// No function in lib/ is over 80 lines, so every one can be read on one screen.
// Counted with TypeScript's own parser: function declarations, methods, arrow functions and
// function expressions, from their first line to their last.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const LIMIT = 80;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

interface Found {
  where: string;
  lines: number;
}

function functionsOf(path: string): Found[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Found[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ where: `${relative(ROOT, path)}:${start + 1}`, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('lib/', () => {
  it(`has no function over ${LIMIT} lines`, () => {
    const all = sourceFiles(join(ROOT, 'lib')).flatMap(functionsOf);
    expect(all.length).toBeGreaterThan(100); // the walk found the code
    const long = all.filter((fn) => fn.lines > LIMIT).map((fn) => `${fn.where} (${fn.lines} lines)`);
    expect(long).toEqual([]);
  });
});
