import { posix } from 'node:path';

/**
 * One pattern of a .dockerignore, compiled as moby's patternmatcher (v0.6, the matcher of `docker build` and
 * BuildKit) compiles it: anchored at the context's root, `*` and `?` never crossing a `/`, `**` any number of
 * directories.
 */
interface Rule {
  exception: boolean;
  matches: (path: string) => boolean;
}

export interface Dockerignore {
  /** Whether `docker build` leaves `path` (relative to the context, `/`-separated) out of the build context. */
  excludes(path: string): boolean;
}

/** Go's filepath.Clean on a `/` path: no `.`, `..`, doubled or trailing slashes. */
function clean(path: string): string {
  const normalized = posix.normalize(path);
  return normalized.length > 1 && normalized.endsWith('/') ? normalized.slice(0, -1) : normalized;
}

/** The lines of a .dockerignore as ignorefile.ReadAll reads them: comments and blanks dropped, paths cleaned. */
function patternsOf(text: string): string[] {
  const patterns: string[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    const raw = index === 0 ? line.replace(/^\uFEFF/, '') : line;
    if (raw.startsWith('#')) continue;
    let pattern = raw.trim();
    if (pattern === '') continue;
    const exception = pattern.startsWith('!');
    if (exception) pattern = pattern.slice(1).trim();
    if (pattern !== '') {
      pattern = clean(pattern);
      if (pattern.length > 1 && pattern.startsWith('/')) pattern = pattern.slice(1);
    }
    patterns.push(exception ? `!${pattern}` : pattern);
  }
  return patterns;
}

/** Pattern.compile and Pattern.match of patternmatcher: an exact, prefix, suffix or regular-expression match. */
function compile(pattern: string): (path: string) => boolean {
  let kind: 'exact' | 'prefix' | 'suffix' | 'regexp' = 'exact';
  let source = '^';
  for (let index = 0; index < pattern.length; index += 1) {
    const ch = pattern[index] ?? '';
    if (ch === '*' && pattern[index + 1] === '*') {
      const startsPattern = index === 0;
      index += 1;
      if (pattern[index + 1] === '/') index += 1;
      if (index + 1 >= pattern.length) {
        if (kind === 'exact') kind = 'prefix';
        else {
          source += '.*';
          kind = 'regexp';
        }
      } else {
        source += '(.*/)?';
        kind = 'regexp';
      }
      if (startsPattern) kind = 'suffix';
    } else if (ch === '*') {
      source += '[^/]*';
      kind = 'regexp';
    } else if (ch === '?') {
      source += '[^/]';
      kind = 'regexp';
    } else if ('.+()|{}$'.includes(ch)) {
      source += `\\${ch}`;
    } else if (ch === '\\') {
      if (index + 1 < pattern.length) {
        index += 1;
        source += `\\${pattern[index] ?? ''}`;
        kind = 'regexp';
      } else {
        source += '\\';
      }
    } else if (ch === '[' || ch === ']') {
      source += ch;
      kind = 'regexp';
    } else {
      source += ch;
    }
  }
  switch (kind) {
    case 'exact':
      return (path) => path === pattern;
    case 'prefix':
      return (path) => path.startsWith(pattern.slice(0, -2));
    case 'suffix': {
      const suffix = pattern.slice(2);
      return (path) => path.endsWith(suffix) || (suffix.startsWith('/') && path === suffix.slice(1));
    }
    case 'regexp': {
      const expression = new RegExp(`${source}$`);
      return (path) => expression.test(path);
    }
  }
}

/**
 * A .dockerignore's rules, matched as PatternMatcher.MatchesOrParentMatches matches them: a path is left out when the
 * last rule that matches it, or one of its parent directories, is not an exception (`!`).
 */
export function parseDockerignore(text: string): Dockerignore {
  const rules: Rule[] = patternsOf(text).map((pattern) => {
    const exception = pattern.startsWith('!');
    return { exception, matches: compile(clean(exception ? pattern.slice(1) : pattern)) };
  });
  return {
    excludes(path: string): boolean {
      const file = clean(path);
      const parent = posix.dirname(file);
      const parentDirs = parent.split('/');
      let excluded = false;
      for (const rule of rules) {
        // A rule can change nothing for a path it would set to what it already is.
        if (rule.exception !== excluded) continue;
        let matched = rule.matches(file);
        if (!matched && parent !== '.') {
          matched = parentDirs.some((_dir, index) => rule.matches(parentDirs.slice(0, index + 1).join('/')));
        }
        if (matched) excluded = !rule.exception;
      }
      return excluded;
    },
  };
}
