import { SECRET_FIELD_NAMES } from '@svc/contracts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

interface Container {
  isObject: boolean;
  path: string[];
  keys: Set<string>;
  /** Inside a secret field: whatever the caller nested there is not named in any message. */
  secret: boolean;
}

/**
 * Paths of the keys a JSON object gives more than once. JSON.parse keeps the last silently, so the caller
 * could not tell which value counted (XML refuses a repeated element too). `text` must be valid JSON: one pass,
 * a key is a string right after `{` or `,` in an object. Nothing inside a secret field is reported.
 */
export function repeatedJsonKeys(text: string): string[][] {
  const repeated: string[][] = [];
  const stack: Container[] = [];
  let lastKey = '';
  let previous = 0;
  for (let at = 0; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      const end = stringEnd(text, at);
      const top = stack[stack.length - 1];
      if (top?.isObject && (previous === OPEN_BRACE || previous === COMMA)) {
        lastKey = JSON.parse(text.slice(at, end + 1)) as string;
        if (top.keys.has(lastKey) && !top.secret) repeated.push([...top.path, lastKey]);
        top.keys.add(lastKey);
      }
      at = end;
      previous = QUOTE;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      const parent = stack[stack.length - 1];
      const path = parent?.isObject ? [...parent.path, lastKey] : (parent?.path ?? []);
      const secret = (parent?.secret ?? false) || (parent?.isObject === true && SECRET_FIELD_NAMES.has(lastKey));
      stack.push({ isObject: code === OPEN_BRACE, path, keys: new Set(), secret });
      previous = code;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      stack.pop();
      previous = code;
    } else if (code > 0x20) {
      previous = code;
    }
  }
  return repeated;
}

/** Index of the quote that closes the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  for (let at = start + 1; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code === BACKSLASH) at += 1;
    else if (code === QUOTE) return at;
  }
  return text.length;
}
