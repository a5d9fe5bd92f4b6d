import { XMLParser } from 'fast-xml-parser';

const parser = new XMLParser({ ignoreDeclaration: true, ignorePiTags: true, removeNSPrefix: true, parseTagValue: false, ignoreAttributes: true });

/**
 * An XML answer as JSON: the root element's content, element names in camelCase (`ReplicationId` → `replicationId`),
 * texts as texts — for the flat answers an XML body gets (Create, Alter) the very JSON a JSON call gets. Lists keep their
 * wrapper (`tables: { table: [...] }`) and a list of one stays an object, as the XML does not say what is a list; `--raw`
 * shows the bytes. Null when the text is no XML document with one root.
 */
export function xmlAnswerAsJson(text: string): unknown {
  let parsed: unknown;
  try {
    parsed = parser.parse(text, true);
  } catch {
    return null;
  }
  if (!isRecord(parsed)) return null;
  const roots = Object.values(parsed);
  if (roots.length !== 1) return null;
  return camelCased(roots[0] === '' ? {} : roots[0]);
}

function camelCased(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelCased);
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key.charAt(0).toLowerCase() + key.slice(1), camelCased(inner)]));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
