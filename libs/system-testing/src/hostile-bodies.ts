/** A hostile request body: well under the 1 MiB limit, cheap to send, as costly as possible to read. */
export interface HostileBody {
  name: string;
  /** What the body holds, for the report. */
  description: string;
  format: 'xml' | 'json';
  body: string;
}

/** The gateway's body limit; each body stays just under it so that it is read rather than refused with 413. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** `head`, then `part(i)` for i = 0, 1, … as long as the whole stays under the limit, then `tail`. */
function fill(head: string, tail: string, part: (index: number) => string): { text: string; parts: number } {
  const pieces = [head];
  let size = head.length + tail.length;
  let parts = 0;
  for (;;) {
    const piece = part(parts);
    if (size + piece.length > BODY_LIMIT_BYTES - 16) break;
    pieces.push(piece);
    size += piece.length;
    parts += 1;
  }
  pieces.push(tail);
  return { text: pieces.join(''), parts };
}

/** ~130,000 distinct empty PascalCase elements under the Create root (`<Xa/><Xb/>…`): every one a well-formed field name. */
export function xmlManyElements(): HostileBody {
  const root = 'CreateWarehouseReplicationRequest';
  const { text, parts } = fill(`<${root}>`, `</${root}>`, (index) => `<X${index.toString(36)}/>`);
  return { name: 'xml-elements', description: `${parts.toLocaleString('en-US')} empty elements`, format: 'xml', body: text };
}

/** ~100,000 distinct keys in one JSON object. */
export function jsonManyKeys(): HostileBody {
  const { text, parts } = fill('{', '"z":1}', (index) => `"k${index.toString(36)}":1,`);
  return { name: 'json-keys', description: `${(parts + 1).toLocaleString('en-US')} keys`, format: 'json', body: text };
}

/** Arrays nested half a million deep: `{"a":[[[[…]]]]}`. */
export function jsonDeepArrays(): HostileBody {
  const depth = Math.floor((BODY_LIMIT_BYTES - 32) / 2);
  return {
    name: 'json-deep',
    description: `arrays nested ${depth.toLocaleString('en-US')} deep`,
    format: 'json',
    body: `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`,
  };
}

/** One field holding a 1 MiB string. */
export function jsonHugeString(): HostileBody {
  const length = BODY_LIMIT_BYTES - 64;
  return {
    name: 'json-string',
    description: `one ${length.toLocaleString('en-US')}-character value`,
    format: 'json',
    body: `{"tablesToInclude":"${'a'.repeat(length)}"}`,
  };
}
