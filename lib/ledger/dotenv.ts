// `.env` at the repository root, loaded under the variables already set (the environment wins).
// Values are secrets (model addresses, keys): nothing here ever prints one.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Env } from './envNames.js';

export interface DotenvParse {
  values: Record<string, string>;
  /** 1-based numbers of lines that are neither an assignment, a comment nor blank. */
  badLines: number[];
}

const ASSIGNMENT = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/;

export function parseDotenv(text: string): DotenvParse {
  const values: Record<string, string> = {};
  const badLines: number[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '' || line.trim().startsWith('#')) return;
    const match = ASSIGNMENT.exec(line);
    const value = match ? unquote(match[2] ?? '') : null;
    if (!match || value === null) badLines.push(index + 1);
    else values[match[1] as string] = value;
  });
  return { values, badLines };
}

/** `'raw'`, `"with \n escapes"` or bare text whose ` # comment` tail is dropped; null when unbalanced. */
function unquote(raw: string): string | null {
  const quote = raw[0];
  if (quote === "'" || quote === '"') {
    const end = raw.indexOf(quote, 1);
    if (end < 0) return null;
    const inner = raw.slice(1, end);
    return quote === "'" ? inner : inner.replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
  }
  return raw.replace(/\s+#.*$/, '');
}

export interface DotenvLoad {
  env: Env;
  /** Names taken from .env (values are never reported). */
  loaded: string[];
  badLines: number[];
  found: boolean;
}

/** `env` with the values of `<root>/.env` added where `env` does not already set them. */
export function withDotenv(env: Env, root: string): DotenvLoad {
  let text: string;
  try {
    text = readFileSync(join(root, '.env'), 'utf8');
  } catch {
    return { env, loaded: [], badLines: [], found: false };
  }
  const { values, badLines } = parseDotenv(text);
  const merged: Env = { ...env };
  const loaded: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    if (merged[name] !== undefined) continue;
    merged[name] = value;
    loaded.push(name);
  }
  return { env: merged, loaded, badLines, found: true };
}
