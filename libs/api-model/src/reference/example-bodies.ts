import { type OperationName } from '@svc/contracts';
import { type ExampleTree } from './operation-docs';
import { type RequestField } from './request-fields';

/** An example request body in both formats, as the reference prints it. */
export interface ExampleBodies {
  xml: string;
  json: string;
}

export function exampleBodies(operation: OperationName, tree: ExampleTree, fields: readonly RequestField[]): ExampleBodies {
  const types = new Map(fields.map((field) => [field.path.join('.'), field.type]));
  return {
    xml: `<?xml version="1.0" encoding="UTF-8"?>\n${xmlElement(`${operation}Request`, tree, '')}`,
    json: JSON.stringify(jsonValue(tree, [], types), null, 2),
  };
}

function xmlElement(name: string, value: string | ExampleTree, indent: string): string {
  if (typeof value === 'string') return `${indent}<${name}>${escapeXml(value)}</${name}>`;
  const children = Object.entries(value);
  if (children.length === 0) return `${indent}<${name}/>`;
  const inner = children.map(([key, child]) => xmlElement(pascal(key), child, `${indent}  `)).join('\n');
  return `${indent}<${name}>\n${inner}\n${indent}</${name}>`;
}

/** JSON takes the typed values too: integers, booleans and the operation list are written as such (text would be read as well). */
function jsonValue(value: string | ExampleTree, path: string[], types: ReadonlyMap<string, string>): unknown {
  if (typeof value !== 'string') {
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, jsonValue(child, [...path, key], types)]));
  }
  const type = types.get(path.join('.'));
  if (type === 'integer') return Number(value);
  if (type === 'boolean') return value.toLowerCase() === 'true';
  if (type === 'list of operations') return value.split(',').map((name) => name.trim());
  return value;
}

export function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
