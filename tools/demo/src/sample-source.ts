/** A table of the sample source, how it is named in the warehouse, and how to compare the two row for row. */
export interface SampleTable {
  /** `[schema].[table]`, as Describe names it. */
  name: string;
  source: string;
  /** Table in the warehouse schema: default-schema tables keep their name, others become `<schema>_<table>`. */
  target: string;
  /** Columns as compared; enums are compared as text (the warehouse keeps their labels). */
  columns: string;
  /** A total order of the rows: the key, or every column for the table without one. */
  orderBy: string;
  keyed: boolean;
}

export const CUSTOMERS: SampleTable = {
  name: '[public].[customers]',
  source: 'public.customers',
  target: 'customers',
  columns: 'id, name, email, tier::text AS tier, balance, signed_up, external_id, profile, tags, avatar',
  orderBy: 'id',
  keyed: true,
};

export const ORDERS: SampleTable = {
  name: '[public].[orders]',
  source: 'public.orders',
  target: 'orders',
  columns: 'id, customer_id, placed_at, total, status, note',
  orderBy: 'id',
  keyed: true,
};

export const ORDER_LINES: SampleTable = {
  name: '[sales].[order_lines]',
  source: 'sales.order_lines',
  target: 'sales_order_lines',
  columns: 'order_id, line, sku, quantity, unit_price',
  orderBy: 'order_id, line',
  keyed: true,
};

export const PAGE_VIEWS: SampleTable = {
  name: '[public].[page_views]',
  source: 'public.page_views',
  target: 'page_views',
  columns: 'viewed_at, path, session, duration_ms',
  orderBy: 'viewed_at, path, session, duration_ms',
  keyed: false,
};

export const SAMPLE_TABLES: SampleTable[] = [CUSTOMERS, ORDERS, ORDER_LINES, PAGE_VIEWS];
export const TRACKED_TABLES: SampleTable[] = SAMPLE_TABLES.filter((table) => table.keyed);

/**
 * The sample source: varied types (numeric(38,10), timestamptz, jsonb, uuid, bytea, text[], an enum,
 * 4-byte UTF-8), a composite key in a non-default schema and a table without a primary key.
 */
export const SAMPLE_SOURCE_SQL = `
CREATE TYPE public.tier AS ENUM ('bronze', 'silver', 'gold', 'platinum');
CREATE SCHEMA sales;

CREATE TABLE public.customers (
  id          bigint PRIMARY KEY,
  name        text NOT NULL,
  email       text,
  tier        public.tier,
  balance     numeric(38,10),
  signed_up   timestamptz,
  external_id uuid,
  profile     jsonb,
  tags        text[],
  avatar      bytea
);
INSERT INTO public.customers
SELECT g,
       CASE WHEN g % 10 = 0 THEN 'Ünïcödé 😀 𝔠𝔲𝔰𝔱𝔬𝔪𝔢𝔯 ' || g ELSE 'customer ' || g END,
       CASE WHEN g % 13 = 0 THEN NULL ELSE 'customer' || g || '@example.com' END,
       (ARRAY['bronze', 'silver', 'gold', 'platinum'])[1 + g % 4]::public.tier,
       round((g * 1234.5678901234)::numeric, 10) - 5000000,
       timestamptz '2024-01-01 00:00:00+00' + g * interval '37 minutes 13.123456 seconds',
       md5('customer' || g)::uuid,
       jsonb_build_object('visits', g % 97, 'newsletter', g % 2 = 0, 'city', 'City ' || (g % 50), 'emoji', '🚀'),
       ARRAY['tag' || (g % 7), 'comma, "quoted"', 'ünïcödé'],
       decode(md5(g::text) || md5((g + 1)::text), 'hex')
  FROM generate_series(1, 20000) g;

CREATE TABLE public.orders (
  id          bigint PRIMARY KEY,
  customer_id bigint NOT NULL,
  placed_at   timestamptz NOT NULL,
  total       numeric(38,10),
  status      text NOT NULL,
  note        text
);
INSERT INTO public.orders
SELECT g,
       1 + (g * 7919) % 20000,
       timestamptz '2025-01-01 00:00:00+00' + g * interval '11 minutes',
       round((g % 1000) * 3.1415926535, 10),
       (ARRAY['placed', 'paid', 'shipped', 'delivered'])[1 + g % 4],
       CASE WHEN g % 5 = 0 THEN 'gift ' || repeat('🎁', 1 + g % 3) ELSE NULL END
  FROM generate_series(1, 40000) g;

CREATE TABLE sales.order_lines (
  order_id   bigint NOT NULL,
  line       int NOT NULL,
  sku        text NOT NULL,
  quantity   int NOT NULL,
  unit_price numeric(38,10) NOT NULL,
  PRIMARY KEY (order_id, line)
);
INSERT INTO sales.order_lines
SELECT o, l, 'SKU-' || ((o * 31 + l) % 5000), 1 + (o + l) % 9, round(((o + l) % 300) * 0.99 + 0.0000000001, 10)
  FROM generate_series(1, 40000) o, generate_series(0, 2) l
 WHERE l <= o % 3;

-- No primary key: seeded, not tracked, refreshed by the reseeding schedule.
CREATE TABLE public.page_views (
  viewed_at   timestamptz NOT NULL,
  path        text NOT NULL,
  session     uuid,
  duration_ms int
);
INSERT INTO public.page_views
SELECT timestamptz '2026-01-01 00:00:00+00' + g * interval '2 seconds',
       '/products/' || (g % 500),
       md5('session' || (g / 20))::uuid,
       (g * 37) % 60000
  FROM generate_series(1, 30000) g;
`;

/** The changes of step 6, each its own transaction unless it says otherwise. */
export const SAMPLE_CHANGES: { what: string; sql: string }[] = [
  {
    what: 'insert 10 customers',
    sql: `INSERT INTO public.customers (id, name, tier, balance, signed_up, tags)
          SELECT g, 'new customer 🧪 ' || g, 'gold', 0.0000000001, now(), ARRAY['new'] FROM generate_series(20001, 20010) g`,
  },
  { what: 'update 400 orders', sql: `UPDATE public.orders SET status = 'refunded', total = total + 0.0000000001 WHERE id % 100 = 0` },
  { what: 'primary-key update of a customer (42 → 1000042)', sql: `UPDATE public.customers SET id = 1000042 WHERE id = 42` },
  { what: 'primary-key update in the composite key (order 7, line 1 → 9)', sql: `UPDATE sales.order_lines SET line = 9 WHERE order_id = 7 AND line = 1` },
  { what: 'delete 50 orders', sql: `DELETE FROM public.orders WHERE id BETWEEN 100 AND 149` },
  {
    what: 'one transaction: new order with lines, balance change, removed lines',
    sql: `BEGIN;
          INSERT INTO public.orders VALUES (40001, 1, now(), 99.9999999999, 'placed', 'multi-row transaction ✨');
          INSERT INTO sales.order_lines SELECT 40001, l, 'SKU-TX-' || l, l + 1, 33.3333333333 FROM generate_series(0, 2) l;
          UPDATE public.customers SET balance = balance - 99.9999999999, profile = profile || '{"lastOrder": 40001}' WHERE id = 1;
          DELETE FROM sales.order_lines WHERE order_id = 3;
          COMMIT;`,
  },
  { what: 'insert 100 page views (table without a key)', sql: `INSERT INTO public.page_views SELECT now() + g * interval '1 second', '/checkout', NULL, g FROM generate_series(1, 100) g` },
];
