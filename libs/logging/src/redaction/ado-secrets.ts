import { isSecretName } from './secret-names';
import { skipWhitespace } from './quoted-value';
import type { Span } from './span';

/**
 * The secret values of `text` read as a whole ADO.NET connection string, pair after pair as SqlClient (and
 * libs/sqlserver's parser) reads it: `;`-separated `key=value` pairs, `==` a literal `=` in a key, values
 * optionally quoted with `"` or `'` where a doubled quote is a literal one. Reading pair after pair cannot be
 * misled by a key-like text inside another value, which a scan of free text can. Empty when the text is not
 * such a string.
 */
export function adoSecretSpans(text: string): Span[] {
  const spans: Span[] = [];
  let at = 0;
  while (at < text.length) {
    at = skipWhitespace(text, at);
    if (at >= text.length) break;
    if (text[at] === ';') {
      at += 1;
      continue;
    }
    const key = readKey(text, at);
    if (key === null) return [];
    const valueEnd = adoValueEnd(text, key.end);
    if (valueEnd === null) return [];
    if (isSecretName(key.name)) spans.push({ start: key.end, end: valueEnd });
    at = valueEnd;
  }
  return spans;
}

function readKey(text: string, start: number): { name: string; end: number } | null {
  let name = '';
  for (let at = start; at < text.length; at += 1) {
    const char = text[at];
    if (char === ';') return null;
    if (char === '=' && text[at + 1] === '=') {
      name += '=';
      at += 1;
    } else if (char === '=') {
      return { name, end: at + 1 };
    } else {
      name += char;
    }
  }
  return null;
}

/** Index of the `;` that ends the value (or the text's end); null when a quote is never closed or text follows it. */
function adoValueEnd(text: string, start: number): number | null {
  const at = skipWhitespace(text, start);
  const quote = text[at];
  if (quote !== '"' && quote !== "'") {
    const semicolon = text.indexOf(';', at);
    return semicolon === -1 ? text.length : semicolon;
  }
  for (let inside = at + 1; inside < text.length; inside += 1) {
    if (text[inside] !== quote) continue;
    if (text[inside + 1] === quote) {
      inside += 1;
      continue;
    }
    const after = skipWhitespace(text, inside + 1);
    return after < text.length && text[after] !== ';' ? null : after;
  }
  return null;
}
