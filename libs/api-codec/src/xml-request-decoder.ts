import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { SECRET_FIELD_NAMES } from '@svc/contracts';
import { decodeFailure, fieldPathLabel, type DecodeResult } from './decode-result';
import { BAD_REFERENCE, XmlEntityError, decodeXmlText, xmlEntityDecoder } from './xml-entities';

/** Requests are root → group → field; a little room beyond that still gets a precise message from the model. */
const MAX_NESTED_TAGS = 16;
const ELEMENT_NAME = /^[A-Z][A-Za-z0-9]*$/;
const TEXT_KEY = '#text';

const ATTRIBUTE_PREFIX = '@_';

const PARSER_OPTIONS = {
  // Read so that they can be refused: an attribute is a value the API would otherwise silently ignore.
  // Namespace declarations (xmlns, xmlns:x) are dropped by removeNSPrefix and stay allowed.
  ignoreAttributes: false,
  attributeNamePrefix: ATTRIBUTE_PREFIX,
  parseAttributeValue: false,
  removeNSPrefix: true,
  parseTagValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  trimValues: true,
  maxNestedTags: MAX_NESTED_TAGS,
} as const;
const CDATA_KEY = '#cdata';

const parser = new XMLParser({ ...PARSER_OPTIONS, processEntities: true, entityDecoder: xmlEntityDecoder() });
/** Only to find which element holds a bad reference: text as written, CDATA sections apart (never decoded). */
const rawTextParser = new XMLParser({ ...PARSER_OPTIONS, processEntities: false, cdataPropName: CDATA_KEY });

/**
 * XML request body → tree with lower camel keys and raw string values. The root must be `<rootName>`;
 * element names are PascalCase; namespace prefixes are ignored; an attribute or a repeated element is an error.
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
    if (error instanceof XmlEntityError) return decodeFailure(`${badReferenceLocation(rootName, text)}: malformed XML: ${BAD_REFERENCE}`);
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

/**
 * `{Group\Field}` of the first element whose text holds a reference the decoder refuses, found by a second parse
 * that leaves references as written; `{<root>}` when it cannot be pinned down.
 */
function badReferenceLocation(rootName: string, text: string): string {
  const find = (value: unknown, path: string[]): string[] | null => {
    if (typeof value === 'string') {
      try {
        decodeXmlText(value);
        return null;
      } catch {
        return path;
      }
    }
    if (!isRecord(value) && !Array.isArray(value)) return null;
    const entries = Array.isArray(value) ? value.map((item): [string, unknown] => ['', item]) : Object.entries(value);
    for (const [name, child] of entries) {
      if (name === CDATA_KEY) continue;
      const found = find(child, name === '' || name === TEXT_KEY || name.startsWith(ATTRIBUTE_PREFIX) ? path : [...path, name]);
      if (found) return found;
    }
    return null;
  };
  try {
    const document: unknown = rawTextParser.parse(text);
    const content = isRecord(document) ? document[rootName] : undefined;
    const path = find(content, []);
    if (path && path.length > 0) return label(throughSecretField(path));
  } catch {
    // The first parse got further than this one; fall back to the root.
  }
  return label([rootName]);
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
  if (hasAttribute(element)) problems.push(attributeProblem(path));
  if (element[TEXT_KEY] !== undefined) problems.push(`${label(path)}: has text between its elements`);
  for (const [name, value] of Object.entries(element)) {
    if (name === TEXT_KEY || name.startsWith(ATTRIBUTE_PREFIX)) continue;
    const childPath = [...path, name];
    const camelName = name.charAt(0).toLowerCase() + name.slice(1);
    if (!ELEMENT_NAME.test(name)) {
      problems.push(`${label(childPath)}: unknown field; XML element names are PascalCase (letters and digits, first one upper-case)`);
    } else if (Array.isArray(value)) {
      problems.push(`${label(childPath)}: is given more than once`);
    } else if (isRecord(value) && isTextWithAttributes(value)) {
      if (hasAttribute(value)) problems.push(attributeProblem(childPath));
      tree[camelName] = value[TEXT_KEY] ?? '';
    } else if (isRecord(value) && SECRET_FIELD_NAMES.has(camelName)) {
      // What a caller nested inside a secret field is part of the secret: not walked, never named. The API model
      // refuses the group where a single value belongs.
      tree[camelName] = {};
    } else {
      tree[camelName] = isRecord(value) ? camelTree(value, childPath, problems) : value;
    }
  }
  return tree;
}

/**
 * XML Schema instance attributes that serializers such as .NET's DataContractSerializer write (`i:nil="false"`,
 * `xsi:schemaLocation`); the prefix is gone by now. They say nothing the API reads, so they are allowed.
 */
const SCHEMA_INSTANCE_ATTRIBUTES: ReadonlyMap<string, (value: unknown) => boolean> = new Map<string, (value: unknown) => boolean>([
  [`${ATTRIBUTE_PREFIX}nil`, (value: unknown) => value === 'true' || value === 'false'],
  [`${ATTRIBUTE_PREFIX}schemaLocation`, () => true],
  [`${ATTRIBUTE_PREFIX}noNamespaceSchemaLocation`, () => true],
]);

function hasAttribute(element: Record<string, unknown>): boolean {
  return Object.entries(element).some(([name, value]) => name.startsWith(ATTRIBUTE_PREFIX) && !(SCHEMA_INSTANCE_ATTRIBUTES.get(name)?.(value) ?? false));
}

/** An element with attributes and at most text: a single value, maybe decorated with attributes. */
function isTextWithAttributes(element: Record<string, unknown>): boolean {
  const names = Object.keys(element);
  return names.some((name) => name.startsWith(ATTRIBUTE_PREFIX)) && names.every((name) => name === TEXT_KEY || name.startsWith(ATTRIBUTE_PREFIX));
}

/** Neither the attribute's name nor its value is quoted: on a Password element either may be the secret. */
function attributeProblem(path: string[]): string {
  return `${path.length > 0 ? label(path) : 'the root element'}: has an attribute; the API reads elements only (namespace declarations aside)`;
}

/** A path cut after its first secret field: the names below it are the caller's text inside a secret. */
function throughSecretField(path: string[]): string[] {
  const secretAt = path.findIndex((name) => SECRET_FIELD_NAMES.has(name.charAt(0).toLowerCase() + name.slice(1)));
  return secretAt === -1 ? path : path.slice(0, secretAt + 1);
}

function label(path: string[]): string {
  return fieldPathLabel(path, false);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
