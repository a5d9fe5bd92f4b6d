/**
 * ADO.NET connection strings (`Server=tcp:host,1433;Database=x;User ID=u;Password="p;w"`), read the way
 * SqlClient does: `;`-separated `key=value` pairs, keys case-insensitive with inner whitespace collapsed,
 * `==` inside a key for a literal `=`, values optionally quoted with `"` or `'` (a doubled quote inside
 * is a literal quote), unquoted values trimmed. One reader for the SQL Server engine (which connects with
 * the pairs) and the redactor (which hides the secret ones), so that both read a string alike.
 */

export type AdoPairs = ReadonlyMap<string, string>;

/** One `key=value` pair as it stands in the text. */
export interface AdoPair {
  /** The key as written, `==` read as `=`; not normalised. */
  key: string;
  /** The value as SqlClient reads it: unquoted and trimmed. */
  value: string;
  /** Where the value's text starts (just after the `=`) and ends (the `;` that follows, or the text's end). */
  valueStart: number;
  valueEnd: number;
}

/** Lower-case key with runs of whitespace collapsed, so `Initial   Catalog` and `initial catalog` match. */
export function normaliseAdoKey(key: string): string {
  return key.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** The pairs of `text` in order, or null when it is not an ADO connection string (a pair without `=`, an unclosed quote, text after a closing quote). */
export function readAdoPairs(text: string): AdoPair[] | null {
  const pairs: AdoPair[] = [];
  let at = 0;
  while (at < text.length) {
    at = skipWhitespace(text, at);
    if (at >= text.length) break;
    if (text[at] === ';') {
      at += 1;
      continue;
    }
    const key = readKey(text, at);
    if (key === null) return null;
    const value = readValue(text, key.end);
    if (value === null) return null;
    pairs.push({ key: key.text, value: value.text, valueStart: key.end, valueEnd: value.end });
    at = value.end;
  }
  return pairs;
}

/** The pairs of an ADO connection string by normalised key (last occurrence of a key wins), or null when the text is malformed or a key is empty. */
export function parseAdoConnectionString(text: string): AdoPairs | null {
  const read = readAdoPairs(text);
  if (read === null) return null;
  const pairs = new Map<string, string>();
  for (const { key, value } of read) {
    const name = normaliseAdoKey(key);
    if (name === '') return null;
    pairs.set(name, value);
  }
  return pairs;
}

/** First value present among synonymous keys (e.g. `server`, `data source`). */
export function adoValue(pairs: AdoPairs, synonyms: readonly string[]): string | undefined {
  for (const synonym of synonyms) {
    const value = pairs.get(synonym);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** SqlClient's boolean spellings; undefined for anything else. */
export function adoBoolean(value: string | undefined): boolean | undefined {
  const word = value?.trim().toLowerCase() ?? '';
  if (word === 'true' || word === 'yes') return true;
  if (word === 'false' || word === 'no') return false;
  return undefined;
}

function skipWhitespace(text: string, at: number): number {
  let position = at;
  while (position < text.length && /\s/.test(text[position] ?? '')) position += 1;
  return position;
}

/** Reads up to the `=` that ends a key; `==` is an escaped `=` within the key. */
function readKey(text: string, start: number): { text: string; end: number } | null {
  let key = '';
  let at = start;
  while (at < text.length) {
    const char = text[at];
    if (char === ';') return null;
    if (char === '=') {
      if (text[at + 1] === '=') {
        key += '=';
        at += 2;
        continue;
      }
      return { text: key, end: at + 1 };
    }
    key += char;
    at += 1;
  }
  return null;
}

function readValue(text: string, start: number): { text: string; end: number } | null {
  const at = skipWhitespace(text, start);
  const quote = text[at];
  if (quote === '"' || quote === "'") return readQuotedValue(text, at + 1, quote);
  const end = text.indexOf(';', at);
  const stop = end === -1 ? text.length : end;
  return { text: text.slice(at, stop).trim(), end: stop };
}

function readQuotedValue(text: string, start: number, quote: string): { text: string; end: number } | null {
  let value = '';
  let at = start;
  while (at < text.length) {
    const char = text[at];
    if (char === quote) {
      if (text[at + 1] === quote) {
        value += quote;
        at += 2;
        continue;
      }
      const after = skipWhitespace(text, at + 1);
      if (after < text.length && text[after] !== ';') return null;
      return { text: value, end: after };
    }
    value += char;
    at += 1;
  }
  return null;
}
