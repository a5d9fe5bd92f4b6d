import { createHash } from 'node:crypto';
import { Append, Increment, allOf, atMost, below, between, insert, keyIs, remove, transaction, update, type Transaction } from './changes';
import { POSTGRES_SOURCE_LOSSES, type SourceLosses } from './declared-losses';
import { EDGE_CASES, edgeCaseRows } from './edge-cases';
import { Json, type Row, type TableSpec } from './table-spec';

/**
 * Source tables of the pipeline suite: every type of the acceptance list, a composite key in another schema, a table
 * without a key, and the edge cases of names, blanks and limits (edge-cases.ts).
 */
export const ITEMS: TableSpec = {
  schema: 'public',
  name: 'items',
  columns: [
    { name: 'id', type: 'bigint', nullable: false },
    { name: 'name', type: 'text' },
    { name: 'price', type: 'decimal(38,10)' },
    { name: 'happened', type: 'timestamptz' },
    { name: 'payload', type: 'bytes' },
    { name: 'uid', type: 'uuid' },
    { name: 'doc', type: 'json' },
    { name: 'tags', type: 'text[]' },
    { name: 'feeling', type: 'enum', labels: ['happy', 'sad', 'meh'] },
    { name: 'note', type: 'text' },
  ],
  primaryKey: ['id'],
};

export const ORDER_LINES: TableSpec = {
  schema: 'sales',
  name: 'order_lines',
  columns: [
    { name: 'order_id', type: 'int', nullable: false },
    { name: 'line', type: 'int', nullable: false },
    { name: 'qty', type: 'int', nullable: false },
  ],
  primaryKey: ['order_id', 'line'],
};

export const AUDIT_LOG: TableSpec = {
  schema: 'public',
  name: 'audit_log',
  columns: [
    { name: 'at', type: 'timestamptz' },
    { name: 'message', type: 'text' },
  ],
  primaryKey: [],
};

const START = Date.UTC(2026, 0, 1);
const md5 = (text: string) => createHash('md5').update(text).digest();
const asUuid = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

/** Characters of the suite's longest values: 1 MiB of 4-byte UTF-8 by default; a pair whose warehouse holds less says how much. */
export const BIG_TEXT_CHARACTERS = 262144;

function itemRow(g: number, bigText: number): Row {
  return {
    id: g,
    name: `item ${g}`,
    // g * 1.0000000001, exactly.
    price: `${g}.${String(g).padStart(10, '0')}`,
    happened: new Date(START + g * 60000),
    payload: md5(String(g)),
    uid: asUuid(md5(String(g)).toString('hex')),
    doc: new Json({ n: g, tag: `x${g}` }),
    tags: [`a${g}`, 'b,"c"'],
    feeling: ['happy', 'sad', 'meh'][g % 3] ?? 'meh',
    // 1 MiB of 4-byte UTF-8 in one value (or the most the pair's warehouse holds).
    note: g === 7 ? '😀'.repeat(bigText) : g % 7 === 0 ? null : `note ${g}`,
  };
}

/** The suite's tables with their first rows, for SourceSession.createTables; `losses`: what the source cannot hold (declared-losses.ts). */
export const pipelineTables = (bigText = BIG_TEXT_CHARACTERS, losses: SourceLosses = POSTGRES_SOURCE_LOSSES): { spec: TableSpec; rows: Row[] }[] => [
  { spec: ITEMS, rows: range(1, 3000).map((g) => itemRow(g, bigText)) },
  { spec: ORDER_LINES, rows: range(1, 2000).map((g) => ({ order_id: Math.floor(g / 10), line: g % 10, qty: g })) },
  { spec: AUDIT_LOG, rows: range(1, 100).map((g) => ({ at: new Date(START + g * 1000), message: `event ${g}` })) },
  { spec: EDGE_CASES, rows: edgeCaseRows(losses) },
];

/** The mixed workload of the acceptance list, each step its own transaction. */
export const mixedWorkload = (bigText = BIG_TEXT_CHARACTERS): Transaction[] => [
  // A multi-row transaction: inserts, updates and deletes together.
  transaction(
    insert(
      ITEMS,
      range(3001, 3100).map((g) => ({ id: g, name: `new ${g}`, price: '12345678901234567890.0123456789', feeling: 'meh' })),
    ),
    update(ITEMS, { price: new Increment(1) }, atMost('id', 100)),
    remove(ITEMS, between('id', 200, 250)),
  ),
  // Primary-key updates, in both tables.
  transaction(update(ITEMS, { id: 100000 }, keyIs('id', 10))),
  transaction(update(ORDER_LINES, { line: 99 }, allOf(keyIs('order_id', 1), keyIs('line', 1)))),
  // NULLs and an empty string.
  transaction(update(ITEMS, { doc: null, tags: null, payload: null, happened: null }, keyIs('id', 20))),
  transaction(update(ITEMS, { name: '' }, keyIs('id', 21))),
  // Another MiB of 4-byte characters, and an emoji in a short value.
  transaction(update(ITEMS, { note: '𝄞'.repeat(bigText) }, keyIs('id', 8))),
  transaction(update(ITEMS, { name: 'emoji 🚀 name' }, keyIs('id', 22))),
  // A key inserted and deleted again, in separate transactions.
  transaction(insert(ITEMS, [{ id: 200000, name: 'short-lived' }])),
  transaction(remove(ITEMS, keyIs('id', 200000))),
  // Deletes in the composite-key table, and an enum change.
  transaction(remove(ORDER_LINES, keyIs('order_id', 5))),
  transaction(update(ITEMS, { feeling: 'happy' }, allOf(keyIs('feeling', 'sad'), below('id', 1000)))),
];

/** Every row of ITEMS a few KB larger and its price changed: a batch big enough to be caught in flight. */
export const GROW_EVERY_ITEM = transaction(update(ITEMS, { price: new Increment(1), note: new Append('+'.repeat(2000)) }, allOf()));

export const PIPELINE_TABLES = pipelineTables();
export const MIXED_WORKLOAD = mixedWorkload();
