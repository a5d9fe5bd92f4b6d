import { UsageError } from '../exit-codes';
import type { FieldAssignment } from '../args/parse-args';

/** Nested fields built from `--set` paths; keys are stored lower-case-first as in the JSON format. */
export interface FieldTree {
  [name: string]: string | FieldTree;
}

export function lowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

export function upperFirst(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** `Warehouse.BucketName=x` and `warehouse.bucketName=x` name the same field; giving it twice is an error. */
export function buildFieldTree(assignments: FieldAssignment[]): FieldTree {
  const root: FieldTree = {};
  for (const { path, value } of assignments) {
    const keys = path.map(lowerFirst);
    const shown = path.join('.');
    let node = root;
    keys.slice(0, -1).forEach((key) => {
      const existing = node[key];
      if (typeof existing === 'string') throw new UsageError(`--set ${shown}: ${key} already has a value and cannot also hold fields`);
      node = existing ?? (node[key] = {});
    });
    const leaf = keys[keys.length - 1];
    if (typeof node[leaf] === 'object') throw new UsageError(`--set ${shown}: ${leaf} already holds fields and cannot also have a value`);
    if (node[leaf] !== undefined) throw new UsageError(`--set ${shown}: the field is given more than once`);
    node[leaf] = value;
  }
  return root;
}

function escapeXmlText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

function xmlElements(tree: FieldTree, indent: string): string {
  return Object.entries(tree)
    .map(([key, value]) => {
      const name = upperFirst(key);
      if (typeof value === 'string') return `${indent}<${name}>${escapeXmlText(value)}</${name}>\n`;
      return `${indent}<${name}>\n${xmlElements(value, `${indent}  `)}${indent}</${name}>\n`;
    })
    .join('');
}

/** The tree as a PascalCase XML document under `rootName`. */
export function renderFieldTreeXml(rootName: string, tree: FieldTree): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${rootName}>\n${xmlElements(tree, '  ')}</${rootName}>\n`;
}
