import { connectSqlServer, sqlServerConfig } from '@svc/sqlserver/common';
import sql, { type ConnectionPool, type ISqlType, type config as MssqlConfig, type Request, type Transaction as MssqlTransaction } from 'mssql';
import { Append, Increment, type Assignment, type Change, type Condition, type Transaction } from './changes';
import type { SourceSession } from './engine-fixture';
import { canonical, columnOf, digestOf, Json, type CanonicalRow, type ColumnSpec, type NeutralType, type TableSpec, type Value } from './table-spec';

/** `[name]`, with `]` doubled. */
export const quoteName = (name: string) => `[${name.replace(/\]/g, ']]')}]`;
const unicodeLiteral = (text: string) => `N'${text.replace(/'/g, "''")}'`;

/** The suite's schema `public` is SQL Server's default schema, dbo; every other schema keeps its name. */
export const sqlServerSchema = (schema: string) => (schema === 'public' ? 'dbo' : schema);
export const sqlServerTable = (spec: Pick<TableSpec, 'schema' | 'name'>) => `${quoteName(sqlServerSchema(spec.schema))}.${quoteName(spec.name)}`;

/** Deadlock victim, primary-key and unique-index violations, snapshot update conflict. */
const CONFLICT_NUMBERS = new Set([1205, 2627, 2601, 3960]);

/** SQL Server takes at most 2100 parameters per request and 1000 rows per VALUES list. */
const MAX_PARAMETERS = 2000;
const MAX_ROWS_PER_INSERT = 1000;

const REQUEST_TIMEOUT_MS = 120_000;
const CONNECT_TIMEOUT_MS = 15_000;

/** An `enum` column is text its CHECK constraint limits to the labels. */
const ENUM_TYPE = 'nvarchar(20)';

const SQL_TYPES: Record<Exclude<NeutralType, 'enum'>, string> = {
  int: 'int',
  bigint: 'bigint',
  'decimal(12,2)': 'decimal(12,2)',
  'decimal(38,10)': 'decimal(38,10)',
  text: 'nvarchar(max)',
  'varchar(40)': 'nvarchar(40)',
  timestamptz: 'datetimeoffset(6)',
  bytes: 'varbinary(max)',
  uuid: 'uniqueidentifier',
  // JSON documents and text arrays are held as their JSON text.
  json: 'nvarchar(max)',
  'text[]': 'nvarchar(max)',
  boolean: 'bit',
};

export function sqlServerType(type: NeutralType): string {
  return type === 'enum' ? ENUM_TYPE : SQL_TYPES[type];
}

/** The T-SQL that reads a column back as text, before `canonical`. */
export function canonicalText(type: NeutralType, column: string): string {
  const name = quoteName(column);
  switch (type) {
    case 'int':
    case 'bigint':
      return `CONVERT(varchar(20), ${name})`;
    case 'decimal(12,2)':
    case 'decimal(38,10)':
      return `CONVERT(varchar(50), ${name})`;
    case 'timestamptz':
      return `CONVERT(varchar(34), SWITCHOFFSET(${name}, '+00:00'), 121)`;
    case 'bytes':
      return `CONVERT(varchar(max), ${name}, 2)`;
    case 'uuid':
      return `CONVERT(char(36), ${name})`;
    case 'boolean':
      return `CONVERT(varchar(1), ${name})`;
    case 'text':
    case 'varchar(40)':
    case 'json':
    case 'text[]':
    case 'enum':
      return name;
  }
}

/** How a parameter is declared; null values are written as NULL and take no parameter. */
export type ParameterType = 'nvarchar(max)' | 'varbinary(max)' | 'datetimeoffset' | 'bit' | 'bigint' | 'float';

export interface Parameter {
  name: string;
  type: ParameterType;
  value: string | number | boolean | Buffer | Date;
}

export interface TsqlStatement {
  text: string;
  parameters: Parameter[];
}

export function parameterOf(value: Exclude<Value, null>): Omit<Parameter, 'name'> {
  if (typeof value === 'string') return { type: 'nvarchar(max)', value };
  if (typeof value === 'boolean') return { type: 'bit', value };
  if (typeof value === 'bigint') return { type: 'bigint', value: value.toString() };
  if (typeof value === 'number') return Number.isSafeInteger(value) ? { type: 'bigint', value } : { type: 'float', value };
  if (Buffer.isBuffer(value)) return { type: 'varbinary(max)', value };
  if (value instanceof Date) return { type: 'datetimeoffset', value };
  if (value instanceof Json) return { type: 'nvarchar(max)', value: JSON.stringify(value.document) };
  return { type: 'nvarchar(max)', value: JSON.stringify(value) };
}

/** Renders conditions and assignments as T-SQL, collecting their parameters (@p1, @p2…). */
export class StatementBuilder {
  readonly parameters: Parameter[] = [];

  bind(value: Value): string {
    if (value === null) return 'NULL';
    const name = `p${this.parameters.length + 1}`;
    this.parameters.push({ name, ...parameterOf(value) });
    return `@${name}`;
  }

  condition(spec: TableSpec, where: Condition): string {
    if ('all' in where) return where.all.length === 0 ? '1 = 1' : `(${where.all.map((part) => this.condition(spec, part)).join(' AND ')})`;
    if ('any' in where) return where.any.length === 0 ? '1 = 0' : `(${where.any.map((part) => this.condition(spec, part)).join(' OR ')})`;
    const name = quoteName(columnOf(spec, where.column).name);
    if ('equals' in where) return `${name} = ${this.bind(where.equals)}`;
    if ('in' in where) return where.in.length === 0 ? '1 = 0' : `${name} IN (${where.in.map((value) => this.bind(value)).join(', ')})`;
    if ('between' in where) return `${name} BETWEEN ${this.bind(where.between[0])} AND ${this.bind(where.between[1])}`;
    if ('atMost' in where) return `${name} <= ${this.bind(where.atMost)}`;
    return `${name} < ${this.bind(where.below)}`;
  }

  assignment(spec: TableSpec, columnName: string, assignment: Assignment): string {
    const name = quoteName(columnOf(spec, columnName).name);
    if (assignment instanceof Increment) return `${name} = ${name} + ${this.bind(assignment.by)}`;
    if (assignment instanceof Append) return `${name} = COALESCE(${name}, N'') + ${this.bind(assignment.text)}`;
    return `${name} = ${this.bind(assignment)}`;
  }
}

/** Rows per INSERT for `columns` columns: within both of SQL Server's limits. */
export const rowsPerInsert = (columns: number) => Math.max(1, Math.min(MAX_ROWS_PER_INSERT, Math.floor(MAX_PARAMETERS / Math.max(1, columns))));

function insertStatements(change: Extract<Change, { kind: 'insert' }>): TsqlStatement[] {
  const spec = change.table;
  const columns = spec.columns.filter((column) => change.rows.some((row) => column.name in row));
  const names = columns.map((column) => quoteName(column.name)).join(', ');
  const perStatement = rowsPerInsert(columns.length);
  const statements: TsqlStatement[] = [];
  for (let start = 0; start < change.rows.length; start += perStatement) {
    const builder = new StatementBuilder();
    const tuples = change.rows.slice(start, start + perStatement).map((row) => `(${columns.map((column) => builder.bind(row[column.name] ?? null)).join(', ')})`);
    statements.push({ text: `INSERT INTO ${sqlServerTable(spec)} (${names}) VALUES ${tuples.join(', ')}`, parameters: builder.parameters });
  }
  return statements;
}

/** A change as T-SQL statements with their parameters. */
export function changeStatements(change: Change): TsqlStatement[] {
  if (change.kind === 'insert') return insertStatements(change);
  const spec = change.table;
  const builder = new StatementBuilder();
  if (change.kind === 'update') {
    const set = Object.entries(change.set).map(([column, assignment]) => builder.assignment(spec, column, assignment));
    return [{ text: `UPDATE ${sqlServerTable(spec)} SET ${set.join(', ')} WHERE ${builder.condition(spec, change.where)}`, parameters: builder.parameters }];
  }
  return [{ text: `DELETE FROM ${sqlServerTable(spec)} WHERE ${builder.condition(spec, change.where)}`, parameters: builder.parameters }];
}

/** The spec's columns read as text (c0, c1… in spec order), of the rows `where` selects. */
export function readRowsStatement(spec: TableSpec, where?: Condition): TsqlStatement {
  const builder = new StatementBuilder();
  const columns = spec.columns.map((column, index) => `${canonicalText(column.type, column.name)} AS [c${index}]`).join(', ');
  const filter = where ? ` WHERE ${builder.condition(spec, where)}` : '';
  return { text: `SELECT ${columns} FROM ${sqlServerTable(spec)}${filter}`, parameters: builder.parameters };
}

function columnDefinition(spec: TableSpec, column: ColumnSpec, fill?: Value): string {
  const notNull = column.nullable === false || spec.primaryKey.includes(column.name);
  const name = quoteName(column.name);
  // A DEFAULT takes no parameter: the fill is written as a literal (the suite's own text).
  const fillDefault = fill === undefined ? '' : ` DEFAULT ${tsqlLiteral(fill)} WITH VALUES`;
  const labels = column.type === 'enum' ? ` CHECK (${name} IN (${(column.labels ?? []).map(unicodeLiteral).join(', ')}))` : '';
  return `${name} ${sqlServerType(column.type)} ${notNull ? 'NOT NULL' : 'NULL'}${fillDefault}${labels}`;
}

/** Idempotent; CREATE SCHEMA must be alone in its batch, hence EXEC. */
export function ensureSchemaSql(schema: string): string {
  const name = sqlServerSchema(schema);
  return `IF SCHEMA_ID(${unicodeLiteral(name)}) IS NULL EXEC(${unicodeLiteral(`CREATE SCHEMA ${quoteName(name)}`)})`;
}

export function createTableSql(spec: TableSpec): string {
  const columns = spec.columns.map((column) => columnDefinition(spec, column));
  const key = spec.primaryKey.length ? [`PRIMARY KEY (${spec.primaryKey.map(quoteName).join(', ')})`] : [];
  return `CREATE TABLE ${sqlServerTable(spec)} (${[...columns, ...key].join(', ')})`;
}

export function addColumnSql(spec: TableSpec, column: ColumnSpec, fill?: Value): string {
  return `ALTER TABLE ${sqlServerTable(spec)} ADD ${columnDefinition(spec, column, fill)}`;
}

export function tsqlLiteral(value: Value): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'string') return unicodeLiteral(value);
  throw new Error('the suite fills added columns with numbers, booleans or text only');
}

/** A tracked table in the schema the service never replicates (svc_ct): a commit to it moves the database's change-tracking version. */
const VERSION_CLOCK = '[svc_ct].[suite_version_clock]';

/**
 * Batches, to run in order. Tracking off and on again makes CHANGE_TRACKING_MIN_VALID_VERSION of the table the
 * database's version at that moment. The service may be caught up to exactly that version, which would
 * still be valid, so a commit to another tracked table (the clock) moves the version on while the table is
 * untracked: the service's watermark is then below the minimum valid version, as after a retention purge.
 */
export function expireChangesSql(spec: TableSpec): string[] {
  const table = sqlServerTable(spec);
  const tracked = `SELECT 1 FROM sys.change_tracking_tables WHERE object_id = OBJECT_ID(${unicodeLiteral(table)})`;
  return [
    ensureSchemaSql('svc_ct'),
    `IF OBJECT_ID(${unicodeLiteral(VERSION_CLOCK)}) IS NULL
BEGIN
  CREATE TABLE ${VERSION_CLOCK} (tick int IDENTITY PRIMARY KEY);
  ALTER TABLE ${VERSION_CLOCK} ENABLE CHANGE_TRACKING;
END`,
    // One batch, so that the service has next to no time to find the table untracked (and to track it again itself).
    `IF EXISTS (${tracked})
  ALTER TABLE ${table} DISABLE CHANGE_TRACKING;
INSERT INTO ${VERSION_CLOCK} DEFAULT VALUES;
IF NOT EXISTS (${tracked})
  ALTER TABLE ${table} ENABLE CHANGE_TRACKING WITH (TRACK_COLUMNS_UPDATED = OFF);`,
  ];
}

export function isSqlServerConflict(error: unknown): boolean {
  for (let cause = error, depth = 0; typeof cause === 'object' && cause !== null && depth < 3; depth += 1) {
    const { number, originalError } = cause as { number?: unknown; originalError?: unknown };
    if (typeof number === 'number' && CONFLICT_NUMBERS.has(number)) return true;
    cause = originalError;
  }
  return false;
}

const MSSQL_TYPES: Record<ParameterType, () => ISqlType> = {
  'nvarchar(max)': () => sql.NVarChar(sql.MAX),
  'varbinary(max)': () => sql.VarBinary(sql.MAX),
  datetimeoffset: () => sql.DateTimeOffset(7),
  bit: () => sql.Bit(),
  bigint: () => sql.BigInt(),
  float: () => sql.Float(),
};

function bound(request: Request, parameters: readonly Parameter[]): Request {
  for (const parameter of parameters) request.input(parameter.name, MSSQL_TYPES[parameter.type](), parameter.value);
  return request;
}

/** Every column is read as T-SQL text, so a value is a string or NULL. */
function textOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') throw new Error(`expected text from SQL Server, got ${typeof value}`);
  return value;
}

/** mssql's driver errors carry no password, but the server's own messages could quote what it was sent: a password is never repeated. */
function withoutSecret(error: unknown, config: MssqlConfig): Error {
  const message = error instanceof Error ? error.message : String(error);
  const password = config.password;
  return new Error(password ? message.split(password).join('***') : message);
}

async function connectedPool(connectionString: string): Promise<ConnectionPool> {
  const config: MssqlConfig = {
    ...sqlServerConfig(connectionString, { encrypt: false, connectTimeoutMs: CONNECT_TIMEOUT_MS }),
    requestTimeout: REQUEST_TIMEOUT_MS,
    pool: { min: 0, max: 4 },
  };
  try {
    return await connectSqlServer(config);
  } catch (error) {
    throw withoutSecret(error, config);
  }
}

async function runChanges(transaction: MssqlTransaction, work: Transaction): Promise<void> {
  for (const change of work.changes) {
    for (const statement of changeStatements(change)) await bound(transaction.request(), statement.parameters).query(statement.text);
  }
}

/** The SQL Server source of the generic suite. */
export async function openSqlServerSource(connectionString: string): Promise<SourceSession> {
  const pool = await connectedPool(connectionString);
  let open: MssqlTransaction | null = null;

  const inTransaction = async (work: (transaction: MssqlTransaction) => Promise<void>) => {
    const transaction = pool.transaction();
    await transaction.begin();
    try {
      await work(transaction);
    } catch (error) {
      // A deadlock victim's transaction is rolled back already: a second rollback has nothing to do.
      await transaction.rollback().catch(() => undefined);
      throw error;
    }
    return transaction;
  };

  const session: SourceSession = {
    engine: 'SQL Server',
    async createTables(tables) {
      const transaction = await inTransaction(async (opened) => {
        for (const { spec } of tables) {
          await opened.request().batch(ensureSchemaSql(spec.schema));
          await opened.request().batch(createTableSql(spec));
        }
        for (const { spec, rows } of tables) if (rows) await runChanges(opened, { changes: [{ kind: 'insert', table: spec, rows }] });
      });
      await transaction.commit();
    },
    async apply(work) {
      await session.begin(work);
      await session.commit();
    },
    async begin(work) {
      if (open) throw new Error('this session has a transaction open already');
      open = await inTransaction((transaction) => runChanges(transaction, work));
    },
    async commit() {
      const transaction = open;
      if (!transaction) throw new Error('no transaction is open');
      open = null;
      await transaction.commit();
    },
    async addColumn(spec, column, fill) {
      await pool.request().batch(addColumnSql(spec, column, fill));
    },
    async readRows(spec, where) {
      const statement = readRowsStatement(spec, where);
      const result = await bound(pool.request(), statement.parameters).query<Record<string, unknown>>(statement.text);
      return result.recordset.map((row): CanonicalRow => spec.columns.map((column, index) => canonical(column.type, textOf(row[`c${index}`]))));
    },
    digest: async (spec, where) => digestOf(await session.readRows(spec, where)),
    isConflict: isSqlServerConflict,
    expireChanges: async (spec) => {
      for (const batch of expireChangesSql(spec)) await pool.request().batch(batch);
    },
    close: () => pool.close(),
  };
  return session;
}

/** The suite's two databases on a server, named after the run. */
export const suiteDatabaseNames = (runId: string) => ({ source: `svc_suite_${runId}_source`, staging: `svc_suite_${runId}_staging` });

const isUrlForm = (connectionString: string) => /^\s*mssql:\/\//i.test(connectionString);

/**
 * `serverUrl` (MSSQL_URL) with `database` as its database. Both forms are accepted: `mssql://user:pw@host:port`
 * (a named instance, `/instance/`, is kept; a database the URL names is replaced) and an ADO string, whose
 * last Database= wins. Everything else, TLS settings included, stays as the user wrote it.
 */
export function withDatabase(serverUrl: string, database: string): string {
  // Parses with the service's own grammar, so that a string the service would refuse fails here first.
  sqlServerConfig(serverUrl, { encrypt: false, connectTimeoutMs: CONNECT_TIMEOUT_MS });
  return isUrlForm(serverUrl) ? urlWithDatabase(serverUrl, database) : `${serverUrl.trim().replace(/[\s;]+$/, '')};Database=${adoText(database)}`;
}

function urlWithDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl.trim());
  const segments = url.pathname.split('/').filter((segment) => segment !== '');
  const instance = segments.length === 2 ? [segments[0] ?? ''] : [];
  url.pathname = `/${[...instance, encodeURIComponent(database)].join('/')}`;
  return url.href;
}

/** An ADO value, quoted when it holds what would end or quote it. */
const adoText = (value: string) => (/[;'"=]|^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

export const createDatabaseSql = (name: string) => `IF DB_ID(${unicodeLiteral(name)}) IS NULL CREATE DATABASE ${quoteName(name)}`;

/**
 * Creates the suite's source and staging databases on the server MSSQL_URL names, when missing, and
 * answers their connection strings. Errors never quote the URL or its password.
 */
export async function sqlServerSuiteDatabases(serverUrl: string, runId: string): Promise<{ source: string; staging: string }> {
  const names = suiteDatabaseNames(runId);
  try {
    const connectionStrings = { source: withDatabase(serverUrl, names.source), staging: withDatabase(serverUrl, names.staging) };
    const pool = await connectedPool(serverUrl);
    try {
      for (const name of [names.source, names.staging]) await pool.request().batch(createDatabaseSql(name));
    } finally {
      await pool.close();
    }
    return connectionStrings;
  } catch (error) {
    throw new Error(`cannot create the suite's databases on the SQL Server MSSQL_URL names: ${error instanceof Error ? error.message : String(error)}`);
  }
}
