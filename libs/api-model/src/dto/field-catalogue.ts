import type { AccessType } from '@svc/contracts';
import type { FieldRule } from '../rules/field-rule';
import type { Presence } from './decorators';

/** What the API reference says of a field beyond its rule: what it means, and what holds when it is left out. */
export interface FieldDoc {
  /** What an absent field means, e.g. 'Own' or 'unchanged'. */
  default?: string;
  note?: string;
}

/** One declared field of a model class, as its decorator registered it. Read by the API reference only. */
export type CatalogueEntry =
  | { kind: 'field'; name: string; rule: FieldRule; presence: Presence; doc: FieldDoc }
  | { kind: 'group'; name: string; model: () => new () => object; presence: Presence; doc: FieldDoc }
  | { kind: 'notAllowed'; name: string; reason: string }
  | { kind: 'credential'; name: string; owner: AccessType; rule: FieldRule; completeness: 'complete' | 'partial'; doc: FieldDoc };

const ENTRIES = new Map<object, CatalogueEntry[]>();

/** Called by each decorator with the class prototype it decorates; declaration order is kept. */
export function catalogue(prototype: object, entry: CatalogueEntry): void {
  const entries = ENTRIES.get(prototype) ?? [];
  entries.push(entry);
  ENTRIES.set(prototype, entries);
}

/** The fields `model` declares, inherited ones first (a subclass's entry replaces its parent's of the same name). */
export function declaredFields(model: abstract new () => object): CatalogueEntry[] {
  const chain: object[] = [];
  for (let prototype: unknown = model.prototype; prototype !== null && prototype !== Object.prototype; prototype = Object.getPrototypeOf(prototype)) {
    chain.unshift(prototype as object);
  }
  const byName = new Map<string, CatalogueEntry>();
  for (const prototype of chain) {
    for (const entry of ENTRIES.get(prototype) ?? []) byName.set(entry.name, entry);
  }
  return [...byName.values()];
}
