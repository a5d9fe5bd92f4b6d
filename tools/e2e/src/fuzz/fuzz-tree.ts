/**
 * A request body as the fuzzer builds it: like a JSON value, but a group may repeat a key and a value may be
 * raw text written as is into the JSON or XML document (a lone-surrogate escape, a CDATA section, an attribute).
 */
export type FuzzNode = string | number | boolean | null | FuzzNode[] | FuzzGroup | RawValue;

export class FuzzGroup {
  constructor(readonly entries: [string, FuzzNode][]) {}

  static of(plain: Record<string, unknown>): FuzzGroup {
    return new FuzzGroup(Object.entries(plain).map(([key, value]) => [key, fromPlain(value)]));
  }
}

/** Text written verbatim: `json` in place of the value, `xml(name)` in place of the whole element. */
export class RawValue {
  constructor(
    readonly json: string,
    readonly xml: (name: string) => string,
  ) {}

  /** The same raw text as the value in both formats (XML: as the element's content). */
  static inside(json: string, xmlContent: string): RawValue {
    return new RawValue(json, (name) => `<${name}>${xmlContent}</${name}>`);
  }
}

function fromPlain(value: unknown): FuzzNode {
  if (Array.isArray(value)) return value.map(fromPlain);
  if (typeof value === 'object' && value !== null) return FuzzGroup.of(value as Record<string, unknown>);
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  throw new Error(`cannot fuzz a ${typeof value}`);
}

export function toJson(node: FuzzNode): string {
  if (node instanceof RawValue) return node.json;
  if (node instanceof FuzzGroup) return `{${node.entries.map(([key, value]) => `${JSON.stringify(key)}:${toJson(value)}`).join(',')}}`;
  if (Array.isArray(node)) return `[${node.map(toJson).join(',')}]`;
  if (typeof node === 'number' && Object.is(node, -0)) return '-0';
  return JSON.stringify(node);
}

function pascal(key: string): string {
  return key.charAt(0).toUpperCase() + key.slice(1);
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** One element per key; `null` is an empty element. */
export function toXmlElement(key: string, node: FuzzNode): string {
  const name = pascal(key);
  if (node instanceof RawValue) return node.xml(name);
  // XML has no lists: a list is its element repeated, an empty one an empty element.
  if (Array.isArray(node)) return node.length === 0 ? `<${name}/>` : node.map((item) => toXmlElement(key, item)).join('');
  if (node instanceof FuzzGroup) return `<${name}>${node.entries.map(([child, value]) => toXmlElement(child, value)).join('')}</${name}>`;
  if (node === null) return `<${name}/>`;
  return `<${name}>${escapeXml(typeof node === 'number' && Object.is(node, -0) ? '-0' : String(node))}</${name}>`;
}
