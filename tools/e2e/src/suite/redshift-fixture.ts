import { Client } from 'pg';
import type { WarehouseRows, WarehouseSession } from './engine-fixture';
import { canonical, digestOf, warehouseName, type CanonicalRow, type NeutralType, type TableSpec } from './table-spec';

/**
 * The generic suite's Redshift warehouse, on the cluster REDSHIFT_URL names. Never run in this repository's CI
 * (no Redshift exists there): every expression below is written from the AWS documentation.
 */

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

/**
 * A name as Redshift stores it while enable_case_sensitive_identifier is off: "ASCII letters in standard and delimited
 * identifiers are case-insensitive and are folded to lowercase in the database" (https://docs.aws.amazon.com/redshift/latest/dg/r_names.html).
 */
export const redshiftStoredName = (identifier: string) => identifier.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

/** What the suite needs to load into a real cluster: the cluster, and a bucket it can COPY from with these keys. */
export interface RedshiftSuiteSettings {
  host: string;
  port: number;
  /** A database of the cluster the suite may connect to in order to create one database per stack. */
  database: string;
  username: string;
  password: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** The variables of a live Redshift run, and what each holds. */
export const REDSHIFT_SUITE_VARIABLES = {
  REDSHIFT_URL: 'redshift://user:password@host:5439/database of the cluster',
  REDSHIFT_S3_BUCKET: 'a bucket the stack writes batch files to and the cluster reads',
  REDSHIFT_S3_REGION: "that bucket's region",
  AWS_ACCESS_KEY_ID: 'keys that may write the bucket (the services) and read it (COPY)',
  AWS_SECRET_ACCESS_KEY: 'the secret of those keys',
} as const;

/** The settings from the environment, or the variables that are missing. */
export function redshiftSuiteSettings(env: NodeJS.ProcessEnv): RedshiftSuiteSettings | { missing: string[] } {
  const missing = Object.keys(REDSHIFT_SUITE_VARIABLES).filter((name) => !env[name]?.trim());
  if (missing.length > 0) return { missing };
  const url = new URL(env['REDSHIFT_URL'] ?? '');
  return {
    host: url.hostname,
    port: url.port === '' ? 5439 : Number(url.port),
    database: decodeURIComponent(url.pathname.replace(/^\//, '')) || 'dev',
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    bucket: env['REDSHIFT_S3_BUCKET'] ?? '',
    region: env['REDSHIFT_S3_REGION'] ?? '',
    accessKeyId: env['AWS_ACCESS_KEY_ID'] ?? '',
    secretAccessKey: env['AWS_SECRET_ACCESS_KEY'] ?? '',
  };
}

/**
 * The Redshift expression that reads a column back as text, before `canonical`: VARBYTE as hex, TIMESTAMPTZ in UTC
 * (the session's time zone) with microseconds, booleans spelled out. Arrays are VARCHAR holding PostgreSQL's array
 * literal, turned into JSON by `arrayLiteralAsJson` after the read.
 */
export function redshiftCanonicalText(type: NeutralType, column: string): string {
  const name = quote(column);
  switch (type) {
    case 'timestamptz':
      return `TO_CHAR(${name}, 'YYYY-MM-DD HH24:MI:SS.US')`;
    case 'bytes':
      return `FROM_VARBYTE(${name}, 'hex')`;
    case 'boolean':
      return `CASE WHEN ${name} THEN 'true' WHEN NOT ${name} THEN 'false' END`;
    case 'int':
    case 'bigint':
    case 'decimal(12,2)':
    case 'decimal(38,10)':
      return `CAST(${name} AS VARCHAR(64))`;
    case 'text':
    case 'varchar(40)':
    case 'uuid':
    case 'json':
    case 'text[]':
    case 'enum':
      return name;
  }
}

/** PostgreSQL's array literal (`{a,"b c",NULL}`) as a JSON array; a text that is not one is returned as it is. */
export function arrayLiteralAsJson(text: string): string {
  if (!text.startsWith('{') || !text.endsWith('}')) return text;
  const items: (string | null)[] = [];
  const body = text.slice(1, -1);
  let at = 0;
  while (at < body.length) {
    let item = '';
    if (body[at] === '"') {
      at += 1;
      while (at < body.length && body[at] !== '"') {
        if (body[at] === '\\') at += 1;
        item += body[at] ?? '';
        at += 1;
      }
      at += 1;
      items.push(item);
    } else {
      while (at < body.length && body[at] !== ',') item += body[at++] ?? '';
      items.push(item === 'NULL' ? null : item);
    }
    if (body[at] === ',') at += 1;
  }
  return JSON.stringify(items);
}

/** The SELECT that reads a warehouse table's rows for a spec. */
export function redshiftReadSql(schema: string, spec: TableSpec, rows: WarehouseRows): string {
  const columns = spec.columns.map((column, index) => `${redshiftCanonicalText(column.type, column.name)} AS c${index}`).join(', ');
  const current = rows === 'current' && spec.primaryKey.length > 0 ? ' WHERE svc_sys_is_current' : '';
  return `SELECT ${columns} FROM ${quote(schema)}.${quote(warehouseName(spec))}${current}`;
}

function connectionOf(settings: RedshiftSuiteSettings, database: string): Client {
  return new Client({ host: settings.host, port: settings.port, database, user: settings.username, password: settings.password, ssl: { rejectUnauthorized: true } });
}

/** Creates the stack's own database on the cluster (CREATE DATABASE cannot run in a transaction). */
export async function createRedshiftSuiteDatabase(settings: RedshiftSuiteSettings, name: string): Promise<void> {
  const client = connectionOf(settings, settings.database);
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${quote(name)}`);
  } finally {
    await client.end();
  }
}

export async function openRedshiftWarehouse(settings: RedshiftSuiteSettings, database: string): Promise<WarehouseSession> {
  const client = connectionOf(settings, database);
  client.on('error', () => undefined);
  await client.connect();
  await client.query(`SET timezone TO 'UTC'`);
  const session: WarehouseSession = {
    engine: 'Redshift',
    async readRows(schema, spec, rows = 'all', where) {
      if (where !== undefined) throw new Error('the Redshift fixture reads whole tables only');
      // The catalog holds names as Redshift folded them: ASCII letters lower-cased, quoted or not.
      const exists = await client.query('SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2', [redshiftStoredName(schema), redshiftStoredName(warehouseName(spec))]);
      if (exists.rows.length === 0) return null;
      const result = await client.query({ text: redshiftReadSql(schema, spec, rows), rowMode: 'array' });
      return (result.rows as unknown as (string | null)[][]).map((row): CanonicalRow =>
        row.map((text, index) => {
          const type = spec.columns[index]?.type ?? 'text';
          return canonical(type, type === 'text[]' && text !== null ? arrayLiteralAsJson(text) : text);
        }),
      );
    },
    async digest(schema, spec, rows, where) {
      const read = await session.readRows(schema, spec, rows, where);
      return read === null ? null : digestOf(read);
    },
    query: async <T extends Record<string, unknown>>(sql: string, params: unknown[] = []) => (await client.query<T>(sql, params)).rows,
    close: () => client.end(),
  };
  return session;
}
