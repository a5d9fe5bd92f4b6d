const GUID = /\{[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\}|[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}/y;
const VALUE_END = /^(?:\s|[,}\]]|$)/;
/** Any GUID at all: most bodies have none outside strings, and then the character walk below is skipped. */
const ANY_GUID = /[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}/;

export interface QuotedGuids {
  text: string;
  /** Offsets in `text` where a quote was inserted, ascending, to map error positions back to the original. */
  insertedAt: number[];
}

/**
 * The seed's JSON example writes the ReplicationId GUID without quotes (`"replicationId": 3F2504E0-...`),
 * sometimes in braces. A bare GUID is never valid JSON, so quoting every one found in a value position,
 * outside strings, changes nothing else.
 */
export function quoteBareGuids(json: string): QuotedGuids {
  if (!ANY_GUID.test(json)) return { text: json, insertedAt: [] };
  let text = '';
  const insertedAt: number[] = [];
  let inString = false;
  /** Last non-space character written: a value follows ':', ',' or '['. */
  let previous = '';
  let at = 0;
  while (at < json.length) {
    const char = json[at] ?? '';
    if (inString) {
      if (char === '\\') {
        text += json.slice(at, at + 2);
        previous = char;
        at += 2;
        continue;
      }
      if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else {
      GUID.lastIndex = at;
      const guid = GUID.exec(json)?.[0];
      const startsValue = previous === ':' || previous === ',' || previous === '[';
      if (guid !== undefined && startsValue && VALUE_END.test(json.slice(at + guid.length, at + guid.length + 1))) {
        insertedAt.push(text.length, text.length + guid.length + 1);
        text += `"${guid}"`;
        previous = '"';
        at += guid.length;
        continue;
      }
    }
    if (!/\s/.test(char)) previous = char;
    text += char;
    at += 1;
  }
  return { text, insertedAt };
}

/** Where a position in the quoted text was in the caller's original text. */
export function originalOffset(quoted: QuotedGuids, offset: number): number {
  return offset - quoted.insertedAt.filter((insertion) => insertion < offset).length;
}
