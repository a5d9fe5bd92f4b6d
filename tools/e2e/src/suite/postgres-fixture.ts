import { Client } from 'pg';
import { Append, Increment, type Assignment, type Change, type Condition, type Transaction } from './changes';
import type { SourceSession, WarehouseRows, WarehouseSession } from './engine-fixture';
import { canonical, digestOf, Json, warehouseName, type CanonicalRow, type ColumnSpec, type NeutralType, type TableSpec, type Value } from './table-spec';

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;
const qualified = (schema: string, name: string) => `${quote(schema)}.${quote(name)}`;
const enumType = (spec: TableSpec, column: ColumnSpec) => qualified(spec.schema, `${spec.name}_${column.name}`);

/** Deadlock, serialization failure, unique violation: what concurrent transactions may do to each other. */
const CONFLICTS = new Set(['40P01', '40001', '23505']);

/** Rows per INSERT: PostgreSQL takes at most 65535 parameters per statement. */
const MAX_PARAMETERS = 30000;

/**
 * How a source on PostgreSQL spells the suite's tables: PostgreSQL's own types (POSTGRES_DIALECT), or another engine's
 * types as a model of it holds them in PostgreSQL (the SQL Server model's, sqlserver-model-fixture.ts).
 */
export interface SourceDialect {
  sqlType(spec: TableSpec, column: ColumnSpec): string;
  /** A value as the driver binds it for a column of that type. */
  parameter(value: Value): unknown;
  /** The schema a spec's schema is created in. */
  schemaOf(schema: string): string;
  /** CREATE TYPE … AS ENUM for `enum` columns (or none, when sqlType spells them otherwise). */
  enumTypes: boolean;
}

function postgresType(spec: TableSpec, column: ColumnSpec): string {
  const types: Record<Exclude<NeutralType, 'enum'>, string> = {
    int: 'int',
    bigint: 'bigint',
    'decimal(12,2)': 'numeric(12,2)',
    'decimal(38,10)': 'numeric(38,10)',
    text: 'text',
    'varchar(40)': 'varchar(40)',
    timestamptz: 'timestamptz',
    bytes: 'bytea',
    uuid: 'uuid',
    json: 'jsonb',
    'text[]': 'text[]',
    boolean: 'boolean',
  };
  return column.type === 'enum' ? enumType(spec, column) : types[column.type];
}

function postgresParameter(value: Value): unknown {
  if (value instanceof Json) return JSON.stringify(value.document);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  return value;
}

export const POSTGRES_DIALECT: SourceDialect = { sqlType: postgresType, parameter: postgresParameter, schemaOf: (schema) => schema, enumTypes: true };

/**
 * The text PostgreSQL reads a column back as, before `canonical` (the same expressions serve source and
 * warehouse). `storedAs` is the column's data_type when the spec's type may not be its own (a warehouse): a
 * `text[]` stored as text holds JSON (a SQL Server source) or PostgreSQL's array literal (a Redshift warehouse,
 * which has no arrays); `bytes` stored as text holds hex (the Redshift dialect executed on PostgreSQL).
 */
function canonicalText(type: NeutralType, column: string, storedAs?: string): string {
  const name = quote(column);
  switch (type) {
    case 'timestamptz':
      return `to_char(${name} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
    case 'bytes':
      return storedAs === undefined || storedAs === 'bytea' ? `encode(${name}, 'hex')` : `${name}::text`;
    case 'text[]':
      if (storedAs === undefined || storedAs === 'ARRAY') return `array_to_json(${name})::text`;
      return `CASE WHEN left(${name}::text, 1) = '{' THEN array_to_json(${name}::text::text[])::text ELSE ${name}::text END`;
    case 'int':
    case 'bigint':
    case 'decimal(12,2)':
    case 'decimal(38,10)':
    case 'text':
    case 'varchar(40)':
    case 'uuid':
    case 'json':
    case 'enum':
    case 'boolean':
      return `${name}::text`;
  }
}

/** `storedTypes`: each column's data_type, when the spec's types may not be the table's own (a warehouse). */
async function readCanonical(
  client: Client,
  table: string,
  spec: TableSpec,
  filters: (Condition | string)[] = [],
  storedTypes?: ReadonlyMap<string, string>,
  dialect: SourceDialect = POSTGRES_DIALECT,
): Promise<CanonicalRow[]> {
  const columns = spec.columns.map((column, index) => `${canonicalText(column.type, column.name, storedTypes?.get(column.name))} AS c${index}`).join(', ');
  const statement = new Statement(dialect);
  const where = filters.map((filter) => (typeof filter === 'string' ? filter : statement.condition(spec, filter)));
  const text = `SELECT ${columns} FROM ${table} WHERE ${where.length ? where.join(' AND ') : 'true'}`;
  const result = await client.query<Record<string, string | null>>({ text, values: statement.parameters, rowMode: 'array' } as never);
  return (result.rows as unknown as (string | null)[][]).map((row) => row.map((text, index) => canonical(spec.columns[index]?.type ?? 'text', text)));
}

/** Renders changes as PostgreSQL statements with parameters. */
class Statement {
  readonly parameters: unknown[] = [];

  constructor(private readonly dialect: SourceDialect = POSTGRES_DIALECT) {}

  bind(value: Value, cast: string): string {
    this.parameters.push(this.dialect.parameter(value));
    return `$${this.parameters.length}::${cast}`;
  }

  condition(spec: TableSpec, where: Condition): string {
    if ('all' in where) return where.all.length === 0 ? 'true' : `(${where.all.map((part) => this.condition(spec, part)).join(' AND ')})`;
    if ('any' in where) return where.any.length === 0 ? 'false' : `(${where.any.map((part) => this.condition(spec, part)).join(' OR ')})`;
    const column = spec.columns.find((candidate) => candidate.name === where.column);
    if (!column) throw new Error(`no column ${where.column} in ${spec.name}`);
    const cast = this.dialect.sqlType(spec, column);
    const name = quote(column.name);
    if ('equals' in where) return `${name} = ${this.bind(where.equals, cast)}`;
    if ('in' in where) return where.in.length === 0 ? 'false' : `${name} IN (${where.in.map((value) => this.bind(value, cast)).join(', ')})`;
    if ('between' in where) return `${name} BETWEEN ${this.bind(where.between[0], cast)} AND ${this.bind(where.between[1], cast)}`;
    if ('atMost' in where) return `${name} <= ${this.bind(where.atMost, cast)}`;
    return `${name} < ${this.bind(where.below, cast)}`;
  }

  assignment(spec: TableSpec, columnName: string, assignment: Assignment): string {
    const column = spec.columns.find((candidate) => candidate.name === columnName);
    if (!column) throw new Error(`no column ${columnName} in ${spec.name}`);
    const name = quote(columnName);
    const cast = this.dialect.sqlType(spec, column);
    if (assignment instanceof Increment) return `${name} = ${name} + ${this.bind(assignment.by, cast)}`;
    if (assignment instanceof Append) return `${name} = coalesce(${name}, '') || ${this.bind(assignment.text, 'text')}`;
    return `${name} = ${this.bind(assignment, cast)}`;
  }
}

function changeStatements(change: Change, dialect: SourceDialect): { text: string; values: unknown[] }[] {
  const spec = change.table;
  const table = qualified(dialect.schemaOf(spec.schema), spec.name);
  if (change.kind === 'insert') {
    if (change.rows.length === 0) return [];
    const columns = spec.columns.filter((column) => change.rows.some((row) => column.name in row));
    const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length));
    const statements: { text: string; values: unknown[] }[] = [];
    for (let start = 0; start < change.rows.length; start += perStatement) {
      const statement = new Statement(dialect);
      const tuples = change.rows
        .slice(start, start + perStatement)
        .map((row) => `(${columns.map((column) => statement.bind(row[column.name] ?? null, dialect.sqlType(spec, column))).join(', ')})`);
      statements.push({ text: `INSERT INTO ${table} (${columns.map((column) => quote(column.name)).join(', ')}) VALUES ${tuples.join(', ')}`, values: statement.parameters });
    }
    return statements;
  }
  const statement = new Statement(dialect);
  if (change.kind === 'update') {
    const set = Object.entries(change.set).map(([column, assignment]) => statement.assignment(spec, column, assignment));
    return [{ text: `UPDATE ${table} SET ${set.join(', ')} WHERE ${statement.condition(spec, change.where)}`, values: statement.parameters }];
  }
  return [{ text: `DELETE FROM ${table} WHERE ${statement.condition(spec, change.where)}`, values: statement.parameters }];
}

async function connected(connectionString: string): Promise<Client> {
  const client = new Client({ connectionString });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** What a source on PostgreSQL does differently from PostgreSQL's own: its dialect and how its changes expire. */
export interface PostgresSourceOptions {
  engine: string;
  dialect: SourceDialect;
  expireChanges(client: Client, spec: TableSpec): Promise<void>;
  /** Whether readRows takes each column's stored type from the catalog (a model holding another engine's types). */
  readsStoredTypes: boolean;
}

/** What the retention purge does once changes are older than ChangeTrackingRetentionPeriod (libs/postgres/source). */
async function expirePostgresChanges(client: Client, spec: TableSpec): Promise<void> {
  // The change records go, and the minimum valid version moves past the table's watermark.
  await client.query(
    `BEGIN;
     DELETE FROM svc_ct.${quote(`${spec.schema}.${spec.name}`)};
     UPDATE svc_ct.tracked_tables SET min_valid_version = (pg_current_xact_id()::text::bigint + 1)::text::xid8
      WHERE schema = '${spec.schema.replace(/'/g, "''")}' AND name = '${spec.name.replace(/'/g, "''")}';
     COMMIT;`,
  );
}

const POSTGRES_SOURCE: PostgresSourceOptions = { engine: 'PostgreSQL', dialect: POSTGRES_DIALECT, expireChanges: expirePostgresChanges, readsStoredTypes: false };

/** The PostgreSQL source of the generic suite (or, with `options`, another engine's source modelled in PostgreSQL). */
export async function openPostgresSource(connectionString: string, options: PostgresSourceOptions = POSTGRES_SOURCE): Promise<SourceSession> {
  const { dialect } = options;
  const client = await connected(connectionString);
  const tableOf = (spec: Pick<TableSpec, 'schema' | 'name'>) => qualified(dialect.schemaOf(spec.schema), spec.name);
  const run = async (work: Transaction) => {
    for (const change of work.changes) for (const statement of changeStatements(change, dialect)) await client.query(statement.text, statement.values);
  };
  const session: SourceSession = {
    engine: options.engine,
    async createTables(tables) {
      await client.query('BEGIN');
      try {
        for (const { spec } of tables) {
          await client.query(`CREATE SCHEMA IF NOT EXISTS ${quote(dialect.schemaOf(spec.schema))}`);
          for (const column of spec.columns.filter((candidate) => dialect.enumTypes && candidate.type === 'enum')) {
            await client.query(`CREATE TYPE ${enumType(spec, column)} AS ENUM (${(column.labels ?? []).map((label) => `'${label.replace(/'/g, "''")}'`).join(', ')})`);
          }
          const columns = spec.columns.map((column) => `${quote(column.name)} ${dialect.sqlType(spec, column)}${column.nullable === false ? ' NOT NULL' : ''}`);
          const key = spec.primaryKey.length ? [`PRIMARY KEY (${spec.primaryKey.map(quote).join(', ')})`] : [];
          await client.query(`CREATE TABLE ${tableOf(spec)} (${[...columns, ...key].join(', ')})`);
        }
        for (const { spec, rows } of tables) if (rows) await run({ changes: [{ kind: 'insert', table: spec, rows }] });
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    },
    async apply(work) {
      await session.begin(work).catch(async (error: unknown) => {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      });
      await session.commit();
    },
    async begin(work) {
      await client.query('BEGIN');
      await run(work);
    },
    async commit() {
      await client.query('COMMIT');
    },
    async addColumn(spec, column, fill) {
      const type = dialect.sqlType(spec, column);
      const definition = `${quote(column.name)} ${type}${column.nullable === false ? ' NOT NULL' : ''}`;
      // A DEFAULT takes no parameter: the fill is written as a literal (the suite's own text).
      const literal = fill === undefined ? '' : ` DEFAULT ${pgLiteral(dialect.parameter(fill) as Value)}::${type}`;
      await client.query(`ALTER TABLE ${tableOf(spec)} ADD COLUMN ${definition}${literal}`);
    },
    readRows: async (spec, where) => {
      const stored = options.readsStoredTypes ? await storedTypesOf(client, dialect.schemaOf(spec.schema), spec.name) : undefined;
      return readCanonical(client, tableOf(spec), spec, where ? [where] : [], stored, dialect);
    },
    digest: async (spec, where) => digestOf(await session.readRows(spec, where)),
    isConflict: (error) => CONFLICTS.has((error as { code?: string }).code ?? ''),
    expireChanges: (spec) => options.expireChanges(client, spec),
    close: () => client.end(),
  };
  return session;
}

function pgLiteral(value: Value): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return `'${value.replace(/'/g, "''")}'`;
  throw new Error('the suite fills added columns with numbers, booleans or text only');
}

/** Each column of a table with its data_type. */
async function storedTypesOf(client: Client, schema: string, table: string): Promise<Map<string, string>> {
  const result = await client.query<{ column_name: string; data_type: string }>(
    'SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2',
    [schema, table],
  );
  return new Map(result.rows.map((row) => [row.column_name, row.data_type]));
}

/** `spec`'s names (schema, table, columns, and those of `where`) as `name` turns them into the names the warehouse stored. */
function storedNames(spec: TableSpec, where: Condition | undefined, name: (identifier: string) => string): { spec: TableSpec; where: Condition | undefined } {
  const renamed = (condition: Condition): Condition => {
    if ('all' in condition) return { all: condition.all.map(renamed) };
    if ('any' in condition) return { any: condition.any.map(renamed) };
    return { ...condition, column: name(condition.column) };
  };
  return {
    spec: { ...spec, schema: name(spec.schema), name: name(spec.name), columns: spec.columns.map((column) => ({ ...column, name: name(column.name) })) },
    where: where === undefined ? undefined : renamed(where),
  };
}

export interface PostgresWarehouseOptions {
  /**
   * How the warehouse stored a name the service wrote quoted: as it is (PostgreSQL), or folded as the Redshift dialect
   * on the test hook's PostgreSQL folds it (ASCII letters lower-cased, as Redshift does).
   */
  storedName?: (identifier: string) => string;
}

/** The PostgreSQL warehouse of the generic suite (and of the Redshift dialect executed on PostgreSQL, with `storedName`). */
export async function openPostgresWarehouse(connectionString: string, options: PostgresWarehouseOptions = {}): Promise<WarehouseSession> {
  const client = await connected(connectionString);
  const stored = options.storedName ?? ((identifier: string) => identifier);
  const session: WarehouseSession = {
    engine: 'PostgreSQL',
    async readRows(schema, original, rows: WarehouseRows = 'all', originalWhere) {
      const { spec, where } = storedNames(original, originalWhere, stored);
      const [tableSchema, tableName] = [stored(schema), stored(warehouseName(original))];
      const table = qualified(tableSchema, tableName);
      const [exists] = (await client.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [table])).rows;
      if (exists?.found !== true) return null;
      const current = rows === 'current' && spec.primaryKey.length > 0 ? ['svc_sys_is_current'] : [];
      return readCanonical(client, table, spec, [...current, ...(where ? [where] : [])], await storedTypesOf(client, tableSchema, tableName));
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
