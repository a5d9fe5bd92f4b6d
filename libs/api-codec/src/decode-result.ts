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

/**
 * `{Group\\Field}` as the API model names fields. JSON keys are lower camel case and shown PascalCase like the
 * model's messages; XML element names are shown as sent (`pascalCase` false), so that a wrongly cased name is seen
 * as it was written. Names the caller made up are kept to one short printable line.
 */
export function fieldPathLabel(path: readonly string[], pascalCase = true): string {
  return `{${path
    .map((name) => {
      const printable = name.replace(/[\p{Cc}\p{Cf}]/gu, '?');
      const short = printable.length > 64 ? `${printable.slice(0, 64)}…` : printable;
      return pascalCase ? short.charAt(0).toUpperCase() + short.slice(1) : short;
    })
    .join('\\')}}`;
}
