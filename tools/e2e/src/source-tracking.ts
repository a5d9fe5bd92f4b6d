import type { SqlTarget } from './sql-target';

/** The change-capture objects the service keeps in a PostgreSQL source for one table (libs/postgres/source tracking-sql). */
export interface TableTracking {
  /** Triggers on the table (the capture triggers are svc_ct_insert, _update, _delete, _truncate). */
  triggers: string[];
  /** svc_ct."<schema>.<table>" */
  changeTable: boolean;
  /** svc_ct."<schema>.<table>/capture"() */
  captureFunction: boolean;
  /** A row in svc_ct.tracked_tables. */
  registered: boolean;
}

const quoted = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

/** Tables svc_ct.tracked_tables lists, as `schema.name` (none when the registry does not exist). */
export async function registeredTables(source: SqlTarget): Promise<string[]> {
  const [registry] = await source.query<{ exists: boolean }>(`SELECT to_regclass('svc_ct.tracked_tables') IS NOT NULL AS exists`);
  if (registry?.exists !== true) return [];
  const rows = await source.query<{ table_name: string }>(`SELECT schema || '.' || name AS table_name FROM svc_ct.tracked_tables ORDER BY 1`);
  return rows.map((row) => row.table_name);
}

/** What the source holds for `schema.name`; the names are written out here rather than taken from the service's code. */
export async function tableTracking(source: SqlTarget, schema: string, name: string): Promise<TableTracking> {
  const base = `${schema}.${name}`;
  const [row] = await source.query<{ triggers: string[]; change_table: boolean; capture_function: boolean }>(
    `SELECT array(SELECT tgname::text FROM pg_trigger WHERE tgrelid = to_regclass($1) AND NOT tgisinternal ORDER BY tgname) AS triggers,
            to_regclass($2) IS NOT NULL AS change_table,
            to_regprocedure($3) IS NOT NULL AS capture_function`,
    [`${quoted(schema)}.${quoted(name)}`, `svc_ct.${quoted(base)}`, `svc_ct.${quoted(`${base}/capture`)}()`],
  );
  if (!row) throw new Error(`no answer about ${base}`);
  const registered = (await registeredTables(source)).includes(base);
  return { triggers: row.triggers, changeTable: row.change_table, captureFunction: row.capture_function, registered };
}

/** Whatever schema svc_ct still holds besides its registry table: change tables and their indexes, capture functions, triggers calling them. */
export async function changeSchemaLeftovers(source: SqlTarget): Promise<{ relations: string[]; functions: string[]; triggers: string[]; registered: string[] }> {
  const [row] = await source.query<{ relations: string[]; functions: string[]; triggers: string[] }>(
    `SELECT array(SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                   WHERE n.nspname = 'svc_ct' AND c.relname NOT IN ('tracked_tables', 'tracked_tables_pkey') ORDER BY 1) AS relations,
            array(SELECT p.proname::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                   WHERE n.nspname = 'svc_ct' ORDER BY 1) AS functions,
            array(SELECT t.tgrelid::regclass::text || ' ' || t.tgname FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
                   JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'svc_ct' ORDER BY 1) AS triggers`,
  );
  if (!row) throw new Error('no answer about schema svc_ct');
  return { ...row, registered: await registeredTables(source) };
}
