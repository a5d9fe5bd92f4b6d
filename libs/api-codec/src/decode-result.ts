export type DecodeResult = { ok: true; tree: Record<string, unknown> } | { ok: false; messages: string[] };

export function decodeFailure(message: string): DecodeResult {
  return { ok: false, messages: [message] };
}

/** Converts a character offset into the 1-based line and column people see in an editor. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: offset - lineStart + 1 };
}
