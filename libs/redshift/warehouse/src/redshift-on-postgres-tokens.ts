/**
 * The pieces of a statement as the Redshift-on-PostgreSQL double reads it (redshift-on-postgres.ts): enough to change
 * names and collations without touching what the statement says in literals, dollar quotes and comments.
 * - identifier: a double-quoted name, quotes included;
 * - string: a literal ('…', E'…' with backslash escapes, $tag$…$tag$);
 * - word: a keyword, a bare name, a number or a parameter ($1);
 * - symbol: `::` or any other single character;
 * - space and comment.
 */
export interface SqlToken {
  kind: 'identifier' | 'string' | 'word' | 'symbol' | 'space' | 'comment';
  text: string;
}

const isNameCharacter = (character: string | undefined) => character !== undefined && /[A-Za-z0-9_$\u0080-\uffff]/.test(character);

/** The end (exclusive) of a quoted run starting at `start` with `quote`, doubled quotes inside it; `backslashes` for E'…'. */
function endOfQuoted(sql: string, start: number, quote: string, backslashes: boolean): number {
  let at = start + 1;
  while (at < sql.length) {
    const character = sql[at];
    if (backslashes && character === '\\') at += 2;
    else if (character === quote && sql[at + 1] === quote) at += 2;
    else if (character === quote) return at + 1;
    else at += 1;
  }
  return sql.length;
}

function endOfBlockComment(sql: string, start: number): number {
  let depth = 0;
  let at = start;
  while (at < sql.length) {
    if (sql.startsWith('/*', at)) {
      depth += 1;
      at += 2;
    } else if (sql.startsWith('*/', at)) {
      depth -= 1;
      at += 2;
      if (depth === 0) return at;
    } else at += 1;
  }
  return sql.length;
}

/** `$tag$…$tag$` starting at `start`, or null when the `$` there opens no dollar quote (a parameter such as $1). */
function endOfDollarQuoted(sql: string, start: number): number | null {
  const opening = /^\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(sql.slice(start));
  if (opening === null) return null;
  const closing = sql.indexOf(opening[0], start + opening[0].length);
  return closing < 0 ? sql.length : closing + opening[0].length;
}

function endOfWord(sql: string, start: number): number {
  let at = start;
  while (isNameCharacter(sql[at])) at += 1;
  return at;
}

/** One token starting at `at`. */
function tokenAt(sql: string, at: number): SqlToken {
  const character = sql[at] ?? '';
  const run = (kind: SqlToken['kind'], end: number): SqlToken => ({ kind, text: sql.slice(at, end) });
  if (character === '"') return run('identifier', endOfQuoted(sql, at, '"', false));
  if (character === "'") return run('string', endOfQuoted(sql, at, "'", false));
  if (sql.startsWith('--', at)) {
    const newline = sql.indexOf('\n', at);
    return run('comment', newline < 0 ? sql.length : newline);
  }
  if (sql.startsWith('/*', at)) return run('comment', endOfBlockComment(sql, at));
  if (/\s/.test(character)) return run('space', at + (/^\s+/.exec(sql.slice(at))?.[0].length ?? 1));
  if (character === '$') {
    const dollarQuoted = endOfDollarQuoted(sql, at);
    if (dollarQuoted !== null) return run('string', dollarQuoted);
  }
  if (isNameCharacter(character)) {
    const end = endOfWord(sql, at);
    // E'…': a literal with backslash escapes, its E part of it.
    if (end === at + 1 && (character === 'E' || character === 'e') && sql[end] === "'") return run('string', endOfQuoted(sql, end, "'", true));
    return run('word', end);
  }
  if (sql.startsWith('::', at)) return run('symbol', at + 2);
  return run('symbol', at + 1);
}

/** The statement's tokens; joined, their texts are the statement. */
export function sqlTokens(sql: string): SqlToken[] {
  const tokens: SqlToken[] = [];
  let at = 0;
  while (at < sql.length) {
    const token = tokenAt(sql, at);
    tokens.push(token);
    at += token.text.length;
  }
  return tokens;
}

/** Whether the token is the keyword `word` (any case). */
export const isWord = (token: SqlToken | undefined, word: string): boolean => token?.kind === 'word' && token.text.toLowerCase() === word;

/** Whether the token is `symbol`. */
export const isSymbol = (token: SqlToken | undefined, symbol: string): boolean => token?.kind === 'symbol' && token.text === symbol;

/** The index of the first token at or after `from` that is neither space nor comment (tokens.length when none). */
export function nextSignificant(tokens: readonly SqlToken[], from: number): number {
  let at = from;
  while (at < tokens.length && (tokens[at]?.kind === 'space' || tokens[at]?.kind === 'comment')) at += 1;
  return at;
}

/** The index of the last token before `before` that is neither space nor comment (-1 when none). */
export function previousSignificant(tokens: readonly SqlToken[], before: number): number {
  let at = before - 1;
  while (at >= 0 && (tokens[at]?.kind === 'space' || tokens[at]?.kind === 'comment')) at -= 1;
  return at;
}

/** The index of the `)` closing the `(` at `open`; throws when it is missing. */
export function closingParenthesis(tokens: readonly SqlToken[], open: number): number {
  let depth = 0;
  for (let at = open; at < tokens.length; at += 1) {
    if (isSymbol(tokens[at], '(')) depth += 1;
    else if (isSymbol(tokens[at], ')')) {
      depth -= 1;
      if (depth === 0) return at;
    }
  }
  throw new Error('unbalanced parentheses in the statement');
}

/** The ranges [start, end) of the comma-separated parts of tokens[start, end), commas inside parentheses not counted. */
export function commaSeparated(tokens: readonly SqlToken[], start: number, end: number): [number, number][] {
  const parts: [number, number][] = [];
  let depth = 0;
  let from = start;
  for (let at = start; at < end; at += 1) {
    if (isSymbol(tokens[at], '(')) depth += 1;
    else if (isSymbol(tokens[at], ')')) depth -= 1;
    else if (depth === 0 && isSymbol(tokens[at], ',')) {
      parts.push([from, at]);
      from = at + 1;
    }
  }
  parts.push([from, end]);
  return parts;
}

/** The texts of tokens[start, end) joined. */
export const textOf = (tokens: readonly SqlToken[], start: number, end: number): string =>
  tokens
    .slice(start, end)
    .map((token) => token.text)
    .join('');
