export interface JsonSyntaxError {
  offset: number;
  reason: string;
}

type Container = 'object' | 'array';

/**
 * Finds the first syntax error in a JSON text, for a message with line and column. V8's own messages quote
 * the body (which may hold passwords) and do not always give a position, so they are not shown.
 * Iterative, so that nesting depth cannot exhaust the stack. Returns null when the text is valid.
 */
export function findJsonSyntaxError(text: string): JsonSyntaxError | null {
  const stack: Container[] = [];
  let at = skipSpace(text, 0);
  let expectValue = true;
  for (;;) {
    if (expectValue) {
      const char = text[at];
      if (char === undefined) return { offset: at, reason: 'unexpected end of input; a value is missing' };
      if (char === '{' || char === '[') {
        const container: Container = char === '{' ? 'object' : 'array';
        at = skipSpace(text, at + 1);
        const closer = container === 'object' ? '}' : ']';
        if (text[at] === closer) {
          at = skipSpace(text, at + 1);
          expectValue = false;
          continue;
        }
        stack.push(container);
        if (container === 'object') {
          const key = readKey(text, at);
          if ('reason' in key) return key;
          at = key.next;
        }
        continue;
      }
      const scalar = readScalar(text, at);
      if ('reason' in scalar) return scalar;
      at = skipSpace(text, scalar.next);
      expectValue = false;
      continue;
    }

    const container = stack[stack.length - 1];
    if (container === undefined) {
      return at < text.length ? { offset: at, reason: 'unexpected text after the end of the JSON value' } : null;
    }
    const closer = container === 'object' ? '}' : ']';
    const char = text[at];
    if (char === closer) {
      stack.pop();
      at = skipSpace(text, at + 1);
    } else if (char === ',') {
      at = skipSpace(text, at + 1);
      if (container === 'object') {
        const key = readKey(text, at);
        if ('reason' in key) return key;
        at = key.next;
      }
      expectValue = true;
    } else {
      return { offset: at, reason: char === undefined ? `unexpected end of input; '${closer}' is missing` : `expected ',' or '${closer}'` };
    }
  }
}

type Step = { next: number } | JsonSyntaxError;

/** `"name"` then `:`; leaves `next` at the start of the value. */
function readKey(text: string, at: number): Step {
  if (text[at] !== '"') return { offset: at, reason: 'expected a property name in double quotes' };
  const key = readString(text, at);
  if ('reason' in key) return key;
  const colon = skipSpace(text, key.next);
  if (text[colon] !== ':') return { offset: colon, reason: "expected ':' after the property name" };
  return { next: skipSpace(text, colon + 1) };
}

function readScalar(text: string, at: number): Step {
  const char = text[at] ?? '';
  if (char === '"') return readString(text, at);
  for (const literal of ['true', 'false', 'null']) {
    if (text.startsWith(literal, at)) return { next: at + literal.length };
  }
  const number = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  number.lastIndex = at;
  if (/[-\d]/.test(char) && number.exec(text)) {
    return /[\w.]/.test(text[number.lastIndex] ?? '') ? { offset: at, reason: 'invalid number' } : { next: number.lastIndex };
  }
  return { offset: at, reason: 'unexpected character; a value (string in double quotes, number, true, false, null, object or array) is expected' };
}

function readString(text: string, start: number): Step {
  let at = start + 1;
  while (at < text.length) {
    const char = text[at] ?? '';
    if (char === '"') return { next: at + 1 };
    if (char === '\\') {
      if (!/^(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/.test(text.slice(at + 1, at + 6))) return { offset: at, reason: 'invalid escape sequence in a string' };
      at += text[at + 1] === 'u' ? 6 : 2;
    } else if (char < ' ') {
      return { offset: at, reason: 'control character in a string (write it as an escape such as \\n)' };
    } else {
      at += 1;
    }
  }
  return { offset: start, reason: 'string is not closed' };
}

function skipSpace(text: string, from: number): number {
  let at = from;
  while (text[at] === ' ' || text[at] === '\t' || text[at] === '\n' || text[at] === '\r') at += 1;
  return at;
}
