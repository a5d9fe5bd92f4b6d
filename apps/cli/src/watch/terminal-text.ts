/**
 * Text from the server (table names come from user databases, errors quote them) is written to a terminal:
 * every character that could move the cursor, recolour or retitle the terminal, or reorder what is shown
 * is replaced by a visible escape such as `\x1B` or `\u202E`.
 */
function isUnsafeCodePoint(codePoint: number): boolean {
  return (
    codePoint < 0x20 || // C0 controls: ESC, CR, LF, BEL, TAB...
    (codePoint >= 0x7f && codePoint <= 0x9f) || // DEL and C1 controls (0x9B is a one-byte CSI)
    codePoint === 0x2028 || // line separator
    codePoint === 0x2029 || // paragraph separator
    (codePoint >= 0x202a && codePoint <= 0x202e) || // bidirectional embeddings and overrides
    (codePoint >= 0x2066 && codePoint <= 0x2069) || // bidirectional isolates
    (codePoint >= 0xd800 && codePoint <= 0xdfff) // a lone surrogate
  );
}

function visibleEscape(codePoint: number): string {
  const hex = codePoint.toString(16).toUpperCase();
  return codePoint <= 0xff ? `\\x${hex.padStart(2, '0')}` : `\\u${hex.padStart(4, '0')}`;
}

/** The text with every control or display-reordering character replaced by its visible escape. */
export function escapeForTerminal(text: string): string {
  let result = '';
  for (const character of text) {
    const codePoint = character.codePointAt(0) ?? 0;
    result += isUnsafeCodePoint(codePoint) ? visibleEscape(codePoint) : character;
  }
  return result;
}

/** A message on one line: runs of white space (line breaks included) become one space, then escaped. */
export function oneLineForTerminal(text: string): string {
  return escapeForTerminal(text.replace(/\s+/g, ' ').trim());
}

/** Length in code points, which is what the terminal shows for the text this module produces (wide glyphs aside). */
export function displayLength(text: string): number {
  return Array.from(text).length;
}

/** At most `width` code points; a cut text ends with `…`. */
export function truncateToWidth(text: string, width: number): string {
  const characters = Array.from(text);
  if (characters.length <= width) return text;
  if (width <= 0) return '';
  return `${characters.slice(0, width - 1).join('')}…`;
}

/** Cut or padded with spaces to exactly `width` code points. */
export function fitToWidth(text: string, width: number): string {
  const cut = truncateToWidth(text, width);
  return cut + ' '.repeat(Math.max(0, width - displayLength(cut)));
}
