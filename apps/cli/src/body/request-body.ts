import { extname } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { isOperationName, type OperationName } from '@svc/contracts';
import { UsageError } from '../exit-codes';
import type { BodyFormat, FieldAssignment } from '../args/parse-args';
import { buildFieldTree, renderFieldTreeXml } from './field-tree';

export const CONTENT_TYPES: Record<BodyFormat, string> = {
  json: 'application/json',
  xml: 'application/xml',
};

export interface PreparedRequest {
  operation: OperationName;
  contentType: string;
  body: Buffer;
}

/** Where the body comes from: a file's bytes, text from the command line, or `--set` fields. */
export type BodySource =
  | { kind: 'file'; path: string; content: Buffer }
  | { kind: 'text'; text: string }
  | { kind: 'fields'; assignments: FieldAssignment[] };

export interface BodyInput {
  operation?: OperationName;
  format?: BodyFormat;
  source: BodySource;
}

const rootParser = new XMLParser({ ignoreDeclaration: true, ignorePiTags: true, removeNSPrefix: true });

/** Name of the document element, or undefined when the text holds no single element. */
export function xmlRootElement(xml: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = rootParser.parse(xml);
  } catch {
    return undefined;
  }
  const names = typeof parsed === 'object' && parsed !== null ? Object.keys(parsed) : [];
  return names.length === 1 ? names[0] : undefined;
}

/** `<CreateWarehouseReplicationRequest>` → CreateWarehouseReplication. */
export function operationFromXml(xml: string): OperationName {
  const root = xmlRootElement(xml);
  if (root === undefined) throw new UsageError('cannot find the root element of the XML body to infer the operation; name the operation');
  const name = root.endsWith('Request') ? root.slice(0, -'Request'.length) : root;
  if (!isOperationName(name)) {
    throw new UsageError(`cannot infer the operation from the root element <${root}>; expected <OperationNameRequest> or name the operation`);
  }
  return name;
}

function formatOfFile(path: string, flagged: BodyFormat | undefined): BodyFormat {
  const extension = extname(path).toLowerCase();
  const fromExtension = extension === '.xml' ? 'xml' : extension === '.json' ? 'json' : undefined;
  if (fromExtension === undefined) {
    if (flagged === undefined) throw new UsageError(`cannot tell the format of ${path} from its extension; use .xml or .json, or --format`);
    return flagged;
  }
  if (flagged !== undefined && flagged !== fromExtension) {
    throw new UsageError(`--format ${flagged} contradicts the ${extension} extension of ${path}`);
  }
  return fromExtension;
}

function formatOfText(text: string, flagged: BodyFormat | undefined): BodyFormat {
  return flagged ?? (text.trimStart().replace(/^\uFEFF/, '').startsWith('<') ? 'xml' : 'json');
}

function prepared(operation: OperationName | undefined, format: BodyFormat, body: Buffer): PreparedRequest {
  const resolved = operation ?? (format === 'xml' ? operationFromXml(body.toString('utf8')) : undefined);
  if (resolved === undefined) throw new UsageError('the operation can only be inferred from an XML body; name it, e.g. svc create --file body.json');
  return { operation: resolved, contentType: CONTENT_TYPES[format], body };
}

/**
 * Decides operation, content type and the exact bytes to send. File and text bodies go out unchanged;
 * fields become a JSON object, or with `--format xml` the same tree as `<OperationRequest>` XML.
 */
export function prepareRequest(input: BodyInput): PreparedRequest {
  const { source } = input;
  switch (source.kind) {
    case 'file':
      return prepared(input.operation, formatOfFile(source.path, input.format), source.content);
    case 'text':
      return prepared(input.operation, formatOfText(source.text, input.format), Buffer.from(source.text, 'utf8'));
    case 'fields': {
      if (input.operation === undefined) throw new UsageError('name the operation whose body --set builds');
      const tree = buildFieldTree(source.assignments);
      const format = input.format ?? 'json';
      const text = format === 'xml' ? renderFieldTreeXml(`${input.operation}Request`, tree) : JSON.stringify(tree);
      return { operation: input.operation, contentType: CONTENT_TYPES[format], body: Buffer.from(text, 'utf8') };
    }
  }
}
