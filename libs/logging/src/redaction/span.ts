/** A half-open range [start, end) of a text. */
export interface Span {
  start: number;
  end: number;
}

/** The spans sorted, with overlapping and touching ones joined. */
export function mergeSpans(spans: readonly Span[]): Span[] {
  const sorted = spans.filter((span) => span.end > span.start).sort((a, b) => a.start - b.start);
  const merged: Span[] = [];
  for (const span of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}

/** `text` with each span replaced by `mask`. */
export function replaceSpans(text: string, spans: readonly Span[], mask: string): string {
  let out = '';
  let at = 0;
  for (const span of mergeSpans(spans)) {
    out += text.slice(at, span.start) + mask;
    at = span.end;
  }
  return out + text.slice(at);
}
