import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { decodeFailure, type DecodeResult } from './decode-result';
import { XmlEntityError, xmlEntityDecoder } from './xml-entities';

/** Requests are root → group → field; a little room beyond that still gets a precise message from the model. */
const MAX_NESTED_TAGS = 16;
const ELEMENT_NAME = /^[A-Z][A-Za-z0-9]*$/;
const TEXT_KEY = '#text';

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  trimValues: true,
  processEntities: true,
  entityDecoder: xmlEntityDecoder(),
  maxNestedTags: MAX_NESTED_TAGS,
});

/**
 * XML request body → tree with lower camel keys and raw string values. The root must be `<rootName>`;
 * element names are PascalCase; namespaces and attributes are ignored; a repeated element is an error.
 */
export function decodeXmlRequest(rootName: string, text: string): DecodeResult {
  // Checked on the raw text, before any parser sees it: no entity expansion can happen (billion laughs, XXE).
  if (/<!DOCTYPE/i.test(text) || /<!ENTITY/i.test(text)) {
    return decodeFailure('XML with a DOCTYPE or ENTITY declaration is not accepted');
  }
  const declaredEncoding = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']*)["']/.exec(text)?.[1];
  if (declaredEncoding !== undefined && !/^utf-?8$/i.test(declaredEncoding)) {
    return decodeFailure('XML must be encoded in UTF-8');
  }
  const syntax = XMLValidator.validate(text);
  if (syntax !== true) {
    return decodeFailure(`malformed XML at line ${syntax.err.line}, column ${syntax.err.col}: ${safeSyntaxReason(syntax.err.code, syntax.err.msg)}`);
  }

  let document: unknown;
  try {
    document = parser.parse(text);
  } catch (error: unknown) {
    if (error instanceof XmlEntityError) return decodeFailure(`malformed XML: ${error.message}`);
    if (error instanceof Error && /nested tags/i.test(error.message)) return decodeFailure('XML is nested too deeply');
    if (error instanceof Error && /prototype pollution/i.test(error.message)) {
      return decodeFailure('malformed XML: an element is named like a JavaScript built-in (__proto__, constructor)');
    }
    return decodeFailure('malformed XML: the document could not be read');
  }
  return rootContent(rootName, document);
}

/**
 * The validator's own messages quote tag names, which for a stray '<' inside a value may be a fragment of a
 * password; only messages without quotes pass through, the others are described by their code.
 */
function safeSyntaxReason(code: string, message: string): string {
  if (!/['"]/.test(message)) return message.replace(/\.$/, '');
  switch (code) {
    case 'InvalidTag':
      return 'a tag is malformed, not closed, or closed by a different tag';
    case 'InvalidAttr':
      return 'an attribute is malformed';
    case 'InvalidChar':
      return 'unexpected character';
    default:
      return 'the document is not well-formed';
  }
}

function rootContent(rootName: string, document: unknown): DecodeResult {
  const roots = isRecord(document) ? Object.keys(document) : [];
  const [found = ''] = roots;
  // Two roots of the same name arrive as one key holding a list.
  if (roots.length !== 1 || !isRecord(document) || Array.isArray(document[found])) {
    return decodeFailure(`the XML body must have exactly one root element <${rootName}>`);
  }
  if (found !== rootName) return decodeFailure(`the root element must be <${rootName}>, not <${found}>`);
  const content = document[found];
  if (content === '') return { ok: true, tree: {} };
  if (!isRecord(content)) return decodeFailure(`<${rootName}> must contain elements, not text`);
  const problems: string[] = [];
  const tree = camelTree(content, [], problems);
  return problems.length ? { ok: false, messages: problems } : { ok: true, tree };
}

function camelTree(element: Record<string, unknown>, path: string[], problems: string[]): Record<string, unknown> {
  const tree: Record<string, unknown> = {};
  if (element[TEXT_KEY] !== undefined) problems.push(`${label(path)}: has text between its elements`);
  for (const [name, value] of Object.entries(element)) {
    if (name === TEXT_KEY) continue;
    const childPath = [...path, name];
    if (!ELEMENT_NAME.test(name)) {
      problems.push(`${label(childPath)}: unknown field; XML element names are PascalCase (letters and digits, first one upper-case)`);
    } else if (Array.isArray(value)) {
      problems.push(`${label(childPath)}: is given more than once`);
    } else {
      tree[name.charAt(0).toLowerCase() + name.slice(1)] = isRecord(value) ? camelTree(value, childPath, problems) : value;
    }
  }
  return tree;
}

/** `{Group\Field}` as the API model names fields; element names here are already PascalCase. */
function label(path: string[]): string {
  return `{${path.map((name) => (name.length > 64 ? `${name.slice(0, 64)}…` : name)).join('\\')}}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
