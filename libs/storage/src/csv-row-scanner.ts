const QUOTE = 0x22;
const NEWLINE = 0x0a;

/**
 * Follows CSV quoting across chunks to tell where rows end: at a '\n' outside double quotes. Toggling on
 * every '"' is exact, because an escaped quote inside a quoted field is '""' (two toggles), and neither
 * byte ever occurs inside a multi-byte UTF-8 character.
 */
export class CsvRowScanner {
  private insideQuotes = false;
  private rowJustEnded = true;

  /** True when the bytes seen so far end with a complete row (or nothing was seen yet). */
  get atRowBoundary(): boolean {
    return this.rowJustEnded;
  }

  /** Takes all of `bytes` into account. */
  pass(bytes: Buffer): void {
    if (bytes.length === 0) return;
    let quotes = 0;
    for (let at = bytes.indexOf(QUOTE); at !== -1; at = bytes.indexOf(QUOTE, at + 1)) quotes += 1;
    if (quotes % 2 === 1) this.insideQuotes = !this.insideQuotes;
    this.rowJustEnded = !this.insideQuotes && bytes[bytes.length - 1] === NEWLINE;
  }

  /**
   * Takes `bytes` into account up to the end of the first row that ends in them; returns the length of
   * that prefix, or -1 when no row ends in `bytes` (all of which were taken into account).
   */
  passToRowEnd(bytes: Buffer): number {
    if (bytes.length === 0) return -1;
    let position = 0;
    let newline = bytes.indexOf(NEWLINE);
    for (;;) {
      const quote = bytes.indexOf(QUOTE, position);
      if (!this.insideQuotes && newline !== -1 && (quote === -1 || newline < quote)) {
        this.rowJustEnded = true;
        return newline + 1;
      }
      if (quote === -1) {
        // Any newline left lies inside quotes, so the bytes end mid-row.
        this.rowJustEnded = false;
        return -1;
      }
      this.insideQuotes = !this.insideQuotes;
      position = quote + 1;
      if (newline !== -1 && newline < position) newline = bytes.indexOf(NEWLINE, position);
    }
  }
}
