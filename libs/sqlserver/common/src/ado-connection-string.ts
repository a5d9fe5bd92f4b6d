/**
 * ADO.NET connection strings (`Server=tcp:host,1433;Database=x;User ID=u;Password="p;w"`), parsed the way
 * SqlClient does: `;`-separated `key=value` pairs, keys case-insensitive with inner whitespace collapsed,
 * `==` inside a key for a literal `=`, values optionally quoted with `"` or `'` (a doubled quote inside
 * is a literal quote), unquoted values trimmed.
 */

export type AdoPairs = ReadonlyMap<string, string>;

/** Lower-case key with runs of whitespace collapsed, so `Initial   Catalog` and `initial catalog` match. */
export function normaliseAdoKey(key: string): string {
  return key.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** The pairs of an ADO connection string (last occurrence of a key wins), or null when the text is malformed. */
export function parseAdoConnectionString(text: string): AdoPairs | null {
  const pairs = new Map<string, string>();
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
    const name = normaliseAdoKey(key.text);
    if (name === '') return null;
    pairs.set(name, value.text);
    at = value.end;
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
