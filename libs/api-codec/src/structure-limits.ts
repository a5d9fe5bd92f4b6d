/**
 * Limits on a body's structure, checked in one pass over the text before any parser builds a tree: a request is
 * root → group → field with a few dozen fields, so a body with thousands of elements or keys is refused in
 * milliseconds instead of costing seconds of parsing and validation. The limits leave room above any real
 * request so that the API model still names the precise problem (unknown field, too deep) below them.
 */
export const MAX_XML_MARKUP = 1000;
export const MAX_JSON_FIELDS = 1000;
export const MAX_JSON_DEPTH = 32;

const SLASH = 0x2f;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** The first structural limit `text` exceeds, as a message for the caller, or null. */
export function structureLimitProblem(format: 'xml' | 'json', text: string): string | null {
  return format === 'xml' ? xmlMarkupProblem(text) : jsonStructureProblem(text);
}

/**
 * Counts everything that opens markup — elements, comments, CDATA sections, processing instructions — as
 * every `<` not followed by `/`: a `<` in a value must be written `&lt;`, so this is an upper bound.
 */
function xmlMarkupProblem(text: string): string | null {
  let markup = 0;
  for (let at = text.indexOf('<'); at !== -1; at = text.indexOf('<', at + 1)) {
    if (text.charCodeAt(at + 1) === SLASH) continue;
    markup += 1;
    if (markup > MAX_XML_MARKUP) return `the XML body has more than ${MAX_XML_MARKUP} elements; a request has a few dozen fields`;
  }
  return null;
}

/** Counts keys (each `:` outside strings), objects and lists, and how deeply those nest. */
function jsonStructureProblem(text: string): string | null {
  let fields = 0;
  let depth = 0;
  let inString = false;
  for (let at = 0; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (inString) {
      if (code === BACKSLASH) at += 1;
      else if (code === QUOTE) inString = false;
      continue;
    }
    if (code === QUOTE) {
      inString = true;
    } else if (code === COLON || code === OPEN_BRACE || code === OPEN_BRACKET) {
      fields += 1;
      if (fields > MAX_JSON_FIELDS) return `the JSON body has more than ${MAX_JSON_FIELDS} fields, groups and lists; a request has a few dozen`;
      if (code === COLON) continue;
      depth += 1;
      if (depth > MAX_JSON_DEPTH) return `the JSON body is nested more than ${MAX_JSON_DEPTH} levels deep; a request nests at most three`;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
    }
  }
  return null;
}
