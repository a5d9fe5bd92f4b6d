/**
 * Index just past the quoted value that opens at `open`. Grammars disagree on escapes: ADO.NET doubles the
 * quote, libpq's conninfo and JSON escape it with a backslash, SQL literals (Redshift COPY) do both. The
 * value is read both ways and the farther end wins, so whichever grammar the text follows, its value is
 * covered. A quote never closed runs to the end of the text.
 */
export function quotedValueEnd(text: string, open: number): number {
  return Math.max(closingQuoteEnd(text, open, false), closingQuoteEnd(text, open, true));
}

function closingQuoteEnd(text: string, open: number, backslashEscapes: boolean): number {
  const quote = text[open];
  let at = open + 1;
  while (at < text.length) {
    const char = text[at];
    if (backslashEscapes && char === '\\') at += 2;
    else if (char === quote && text[at + 1] === quote) at += 2;
    else if (char === quote) return at + 1;
    else at += 1;
  }
  return text.length;
}

export function isQuote(char: string | undefined): boolean {
  return char === '"' || char === "'";
}

export function skipWhitespace(text: string, start: number): number {
  let at = start;
  while (at < text.length && /\s/.test(text[at] ?? '')) at += 1;
  return at;
}

/**
 * End of a `key=value` value that starts at `start` (just past the `=`). In a URL query (`?`/`&` before the
 * key) the value ends at the next `&` or `#`, as the URL parser reads it. Elsewhere (ADO.NET, JDBC, conninfo,
 * AWS credential strings) a quoted value ends at its closing quote and an unquoted one at the next `;`: for
 * conninfo, whose pairs are separated by spaces, that hides more than the value rather than less.
 */
export function keyValueEnd(text: string, start: number, inUrlQuery: boolean): number {
  if (inUrlQuery) return firstIndexOf(text, '&#', start);
  const at = skipWhitespace(text, start);
  if (isQuote(text[at])) return quotedValueEnd(text, at);
  return firstIndexOf(text, ';', at);
}

/** Index of the first of `chars` at or after `start`, else text.length. */
export function firstIndexOf(text: string, chars: string, start: number): number {
  for (let at = start; at < text.length; at += 1) if (chars.includes(text[at] ?? '')) return at;
  return text.length;
}
