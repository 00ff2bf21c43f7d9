// The path globs of `gates[].paths` and `refresh[].paths`, matched against repository paths
// (forward slashes, no leading "./"). Written by hand: node 20's path.matchesGlob prints an
// ExperimentalWarning. Patterns are anchored at the repository root:
//   *      any characters within one path segment (not "/")
//   ?      one character within a segment
//   **     as a whole segment: zero or more segments (`**/*.md`, `docs/**`, `a/**/b`)
//   plain  a pattern without * or ? names a file, or a folder and everything under it
//          (`package.json`, `docs`, `docs/`)
// Anything else (`[`, `{`, `!`) is a literal character.

// A pure memo: a glob's regular expression depends on the pattern's text alone.
const cache = new Map<string, RegExp>();

function escapeChar(char: string): string {
  return /[\\^$.|+()[\]{}]/.test(char) ? `\\${char}` : char;
}

function segmentSource(segment: string): string {
  let out = '';
  for (const char of segment) {
    if (char === '*') out += '[^/]*';
    else if (char === '?') out += '[^/]';
    else out += escapeChar(char);
  }
  return out.replace(/(?:\[\^\/\]\*)+/g, '[^/]*'); // `a**b` within a segment is just `*`
}

/** The regular expression a glob stands for (exported for tests). */
export function globToRegExp(pattern: string): RegExp {
  const cached = cache.get(pattern);
  if (cached) return cached;
  const trimmed = pattern.replace(/^\.\//, '');
  let source: string;
  if (!/[*?]/.test(trimmed)) {
    const plain = trimmed.replace(/\/+$/, '');
    const literal = [...plain].map(escapeChar).join('');
    source = trimmed.endsWith('/') ? `${literal}/.+` : `${literal}(?:/.+)?`;
  } else {
    const segments = trimmed.split('/');
    const parts: string[] = [];
    segments.forEach((segment, index) => {
      const last = index === segments.length - 1;
      if (segment === '**') {
        // Leading or middle `**/`: zero or more whole segments. Trailing `/**`: at least one.
        parts.push(last ? (index === 0 ? '.*' : '.+') : '(?:[^/]+/)*');
      } else {
        parts.push(segmentSource(segment) + (last ? '' : '/'));
      }
    });
    source = parts.join('');
  }
  const regexp = new RegExp(`^${source}$`);
  cache.set(pattern, regexp);
  return regexp;
}

/** True when the repository path `path` matches `pattern`. */
export function matchGlob(path: string, pattern: string): boolean {
  return globToRegExp(pattern).test(path);
}

/** True when any of `paths` matches any of `patterns`. */
export function anyPathMatches(paths: readonly string[], patterns: readonly string[]): boolean {
  return paths.some((path) => patterns.some((pattern) => matchGlob(path, pattern)));
}

/** The paths that match at least one pattern. */
export function matchingPaths(paths: readonly string[], patterns: readonly string[]): string[] {
  return paths.filter((path) => patterns.some((pattern) => matchGlob(path, pattern)));
}
