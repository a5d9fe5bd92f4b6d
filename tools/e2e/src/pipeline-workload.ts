import type { SqlTarget } from './sql-target';

/** Source tables of the suite: every type of the acceptance list, a composite key in another schema, a table without a key. */
export const SOURCE_SCHEMA = `
CREATE TYPE mood AS ENUM ('happy', 'sad', 'meh');
CREATE SCHEMA sales;
CREATE TABLE public.items (
  id bigint PRIMARY KEY,
  name text,
  price numeric(38,10),
  happened timestamptz,
  payload bytea,
  uid uuid,
  doc jsonb,
  tags text[],
  feeling mood,
  note text
);
CREATE TABLE sales.order_lines (order_id int, line int, qty int NOT NULL, PRIMARY KEY (order_id, line));
CREATE TABLE public.audit_log (at timestamptz, message text);
INSERT INTO public.items
SELECT g, 'item ' || g, g * 1.0000000001, timestamptz '2026-01-01 00:00:00+00' + g * interval '1 minute',
       decode(md5(g::text), 'hex'), md5(g::text)::uuid, jsonb_build_object('n', g, 'tag', 'x' || g),
       ARRAY['a' || g, 'b,"c"'], (ARRAY['happy', 'sad', 'meh'])[1 + g % 3]::mood, CASE WHEN g % 7 = 0 THEN NULL ELSE 'note ' || g END
  FROM generate_series(1, 3000) g;
-- 1 MiB of 4-byte UTF-8 in one value.
UPDATE public.items SET note = repeat('😀', 262144) WHERE id = 7;
INSERT INTO sales.order_lines SELECT g / 10, g % 10, g FROM generate_series(1, 2000) g;
INSERT INTO public.audit_log SELECT timestamptz '2026-01-01 00:00:00+00' + g * interval '1 second', 'event ' || g FROM generate_series(1, 100) g;
`;

export interface TableShape {
  source: string;
  /** Warehouse table (in the replication's schema). */
  target: string;
  columns: string;
  /** Key columns to order rows by (all columns for a table without a key). */
  orderBy: string;
  /** False for a table without a primary key: plain in the warehouse, no SCD columns. */
  keyed: boolean;
}

export const ITEMS: TableShape = {
  source: 'public.items',
  target: 'items',
  columns: 'id, name, price, happened, payload, uid, doc, tags, feeling::text AS feeling, note',
  orderBy: 'id',
  keyed: true,
};
export const ORDER_LINES: TableShape = { source: 'sales.order_lines', target: 'sales_order_lines', columns: 'order_id, line, qty', orderBy: 'order_id, line', keyed: true };
export const AUDIT_LOG: TableShape = { source: 'public.audit_log', target: 'audit_log', columns: 'at, message', orderBy: 'at, message', keyed: false };

export interface Digest {
  rows: number;
  hash: string;
}

/** Count and md5 of every row's text in key order: equal digests mean equal tables, row for row. */
export async function digest(target: SqlTarget, table: string, shape: TableShape, where = 'true'): Promise<Digest> {
  const [row] = await target.query<{ rows: number; hash: string }>(
    `SELECT count(*)::int AS rows, md5(coalesce(string_agg(r::text, '|' ORDER BY ${shape.orderBy}), '')) AS hash
       FROM (SELECT ${shape.columns} FROM ${table} WHERE ${where}) r`,
  );
  return { rows: row?.rows ?? -1, hash: row?.hash ?? '' };
}

/** The mixed workload of the acceptance list, each step its own transaction unless it says otherwise. */
export const MIXED_WORKLOAD: string[] = [
  // A multi-row transaction: inserts, updates and deletes together.
  `BEGIN;
   INSERT INTO public.items (id, name, price, feeling) SELECT g, 'new ' || g, 12345678901234567890.0123456789, 'meh' FROM generate_series(3001, 3100) g;
   UPDATE public.items SET price = price + 1 WHERE id <= 100;
   DELETE FROM public.items WHERE id BETWEEN 200 AND 250;
   COMMIT;`,
  // Primary-key updates, in both tables.
  `UPDATE public.items SET id = 100000 WHERE id = 10`,
  `UPDATE sales.order_lines SET line = 99 WHERE order_id = 1 AND line = 1`,
  // NULLs and an empty string.
  `UPDATE public.items SET doc = NULL, tags = NULL, payload = NULL, happened = NULL WHERE id = 20`,
  `UPDATE public.items SET name = '' WHERE id = 21`,
  // Another MiB of 4-byte characters, and an emoji in a short value.
  `UPDATE public.items SET note = repeat('𝄞', 262144) WHERE id = 8`,
  `UPDATE public.items SET name = 'emoji 🚀 name' WHERE id = 22`,
  // A key inserted and deleted again, in separate transactions.
  `INSERT INTO public.items (id, name) VALUES (200000, 'short-lived')`,
  `DELETE FROM public.items WHERE id = 200000`,
  // Deletes in the composite-key table, and an enum change.
  `DELETE FROM sales.order_lines WHERE order_id = 5`,
  `UPDATE public.items SET feeling = 'happy' WHERE feeling = 'sad' AND id < 1000`,
];
