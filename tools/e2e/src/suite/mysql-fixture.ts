import { PrivateMariaDb } from '@svc/testing';
import type { RowDataPacket } from 'mysql2';
import type { Connection } from 'mysql2/promise';
import { Append, Increment, type Assignment, type Change, type Condition, type Transaction } from './changes';
import type { SourceSession } from './engine-fixture';
import { canonical, columnOf, digestOf, Json, type CanonicalRow, type ColumnSpec, type NeutralType, type TableSpec, type Value } from './table-spec';

const quote = (name: string) => `\`${name.replaceAll('`', '``')}\``;
/** A suite schema is a MySQL database: `schema`.`name`. */
export const mysqlTable = (spec: Pick<TableSpec, 'schema' | 'name'>) => `${quote(spec.schema)}.${quote(spec.name)}`;

/** Deadlock, lock wait timeout, duplicate key: what concurrent transactions may do to each other. */
const CONFLICT_NUMBERS = new Set([1213, 1205, 1062]);

/** Rows per INSERT, and bytes of values: the server takes at most max_allowed_packet (16 MiB by default) per statement. */
const MAX_ROWS_PER_INSERT = 500;
const MAX_BYTES_PER_INSERT = 8 * 1024 * 1024;

const MYSQL_TYPES: Record<Exclude<NeutralType, 'enum'>, string> = {
  int: 'INT',
  bigint: 'BIGINT',
  'decimal(12,2)': 'DECIMAL(12,2)',
  'decimal(38,10)': 'DECIMAL(38,10)',
  text: 'LONGTEXT',
  'varchar(40)': 'VARCHAR(40)',
  // MySQL's TIMESTAMP ends in 2038: instants are held in DATETIME(6), in UTC.
  timestamptz: 'DATETIME(6)',
  bytes: 'LONGBLOB',
  uuid: 'CHAR(36)',
  json: 'JSON',
  // No arrays: a text array is held as its JSON text, as SQL Server's fixture holds it.
  'text[]': 'JSON',
  boolean: 'BOOLEAN',
};

function mysqlType(column: ColumnSpec): string {
  if (column.type !== 'enum') return MYSQL_TYPES[column.type];
  return `ENUM(${(column.labels ?? []).map((label) => `'${label.replaceAll("'", "''")}'`).join(', ')})`;
}

/** The text MySQL reads a column back as, before `canonical`. */
function canonicalText(type: NeutralType, column: string): string {
  const name = quote(column);
  switch (type) {
    case 'timestamptz':
      return `DATE_FORMAT(${name}, '%Y-%m-%dT%H:%i:%s.%fZ')`;
    case 'bytes':
      return `LOWER(HEX(${name}))`;
    case 'int':
    case 'bigint':
    case 'decimal(12,2)':
    case 'decimal(38,10)':
    case 'boolean':
      return `CAST(${name} AS CHAR)`;
    case 'text':
    case 'varchar(40)':
    case 'uuid':
    case 'json':
    case 'text[]':
    case 'enum':
      return name;
  }
}

/** An instant as DATETIME(6) text in UTC. */
function utcDatetime(value: string | Date): string {
  const iso = canonical('timestamptz', value instanceof Date ? value.toISOString() : value) ?? '';
  return iso.replace('T', ' ').replace(/Z$/, '');
}

/** A value as mysql2 binds it for a column of `type`. */
function parameter(value: Exclude<Value, null>, type: NeutralType | null): unknown {
  if (type === 'timestamptz' && (typeof value === 'string' || value instanceof Date)) return utcDatetime(value);
  if (value instanceof Json) return JSON.stringify(value.document);
  if (value instanceof Date) return utcDatetime(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (Array.isArray(value)) return JSON.stringify(value);
  return value;
}

class Statement {
  readonly values: unknown[] = [];

  bind(value: Value, type: NeutralType | null): string {
    if (value === null) return 'NULL';
    this.values.push(parameter(value, type));
    return '?';
  }

  condition(spec: TableSpec, where: Condition): string {
    if ('all' in where) return where.all.length === 0 ? 'TRUE' : `(${where.all.map((part) => this.condition(spec, part)).join(' AND ')})`;
    if ('any' in where) return where.any.length === 0 ? 'FALSE' : `(${where.any.map((part) => this.condition(spec, part)).join(' OR ')})`;
    const column = columnOf(spec, where.column);
    const name = quote(column.name);
    if ('equals' in where) return `${name} = ${this.bind(where.equals, column.type)}`;
    if ('in' in where) return where.in.length === 0 ? 'FALSE' : `${name} IN (${where.in.map((value) => this.bind(value, column.type)).join(', ')})`;
    if ('between' in where) return `${name} BETWEEN ${this.bind(where.between[0], null)} AND ${this.bind(where.between[1], null)}`;
    if ('atMost' in where) return `${name} <= ${this.bind(where.atMost, null)}`;
    return `${name} < ${this.bind(where.below, null)}`;
  }

  assignment(spec: TableSpec, columnName: string, assignment: Assignment): string {
    const column = columnOf(spec, columnName);
    const name = quote(column.name);
    if (assignment instanceof Increment) return `${name} = ${name} + ${this.bind(assignment.by, null)}`;
    if (assignment instanceof Append) return `${name} = CONCAT(COALESCE(${name}, ''), ${this.bind(assignment.text, null)})`;
    return `${name} = ${this.bind(assignment, column.type)}`;
  }
}

const sizeOf = (value: Value): number => (value === null ? 4 : Buffer.isBuffer(value) ? value.length * 2 : typeof value === 'string' ? Buffer.byteLength(value) : 64);

function changeStatements(change: Change): { sql: string; values: unknown[] }[] {
  const spec = change.table;
  const table = mysqlTable(spec);
  if (change.kind === 'insert') {
    const columns = spec.columns.filter((column) => change.rows.some((row) => column.name in row));
    const statements: { sql: string; values: unknown[] }[] = [];
    let statement = new Statement();
    let tuples: string[] = [];
    let bytes = 0;
    const flush = () => {
      if (tuples.length === 0) return;
      statements.push({ sql: `INSERT INTO ${table} (${columns.map((column) => quote(column.name)).join(', ')}) VALUES ${tuples.join(', ')}`, values: statement.values });
      statement = new Statement();
      tuples = [];
      bytes = 0;
    };
    for (const row of change.rows) {
      const rowBytes = columns.reduce((total, column) => total + sizeOf(row[column.name] ?? null), 0);
      if (tuples.length >= MAX_ROWS_PER_INSERT || (tuples.length > 0 && bytes + rowBytes > MAX_BYTES_PER_INSERT)) flush();
      tuples.push(`(${columns.map((column) => statement.bind(row[column.name] ?? null, column.type)).join(', ')})`);
      bytes += rowBytes;
    }
    flush();
    return statements;
  }
  const statement = new Statement();
  if (change.kind === 'update') {
    const set = Object.entries(change.set).map(([column, assignment]) => statement.assignment(spec, column, assignment));
    return [{ sql: `UPDATE ${table} SET ${set.join(', ')} WHERE ${statement.condition(spec, change.where)}`, values: statement.values }];
  }
  return [{ sql: `DELETE FROM ${table} WHERE ${statement.condition(spec, change.where)}`, values: statement.values }];
}

/**
 * Makes the service find its changes purged, as the server's binlog_expire_logs_seconds would: the log is moved to a
 * new file and every older one purged (PURGE passes over a file a dump thread still reads, so it is asked again).
 */
export async function purgeBinaryLogs(connection: Connection): Promise<void> {
  await connection.query('FLUSH BINARY LOGS');
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const [rows] = await connection.query<RowDataPacket[]>('SHOW BINARY LOGS');
    const names = rows.map((row) => String(row['Log_name']));
    if (names.length <= 1) return;
    await connection.query(`PURGE BINARY LOGS TO '${names.at(-1) ?? ''}'`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the binary logs could not be purged: a dump thread keeps reading them');
}

/** The MySQL source of the generic suite: a database per suite schema on a MariaDB server of the stack's own. */
export async function openMysqlSource(server: PrivateMariaDb): Promise<SourceSession> {
  const connection = await server.connect();
  connection.on('error', () => undefined);
  await connection.query("SET SESSION time_zone = '+00:00', SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION'");
  const run = async (work: Transaction) => {
    for (const change of work.changes) for (const statement of changeStatements(change)) await connection.query(statement.sql, statement.values);
  };
  const session: SourceSession = {
    engine: 'MariaDB',
    async createTables(tables) {
      for (const { spec } of tables) {
        await connection.query(`CREATE DATABASE IF NOT EXISTS ${quote(spec.schema)} CHARACTER SET utf8mb4`);
        const columns = spec.columns.map((column) => `${quote(column.name)} ${mysqlType(column)}${column.nullable === false ? ' NOT NULL' : ' NULL'}`);
        const key = spec.primaryKey.length ? [`PRIMARY KEY (${spec.primaryKey.map(quote).join(', ')})`] : [];
        await connection.query(`CREATE TABLE ${mysqlTable(spec)} (${[...columns, ...key].join(', ')})`);
      }
      await connection.query('START TRANSACTION');
      try {
        for (const { spec, rows } of tables) if (rows) await run({ changes: [{ kind: 'insert', table: spec, rows }] });
        await connection.query('COMMIT');
      } catch (error) {
        await connection.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    },
    async apply(work) {
      await session.begin(work).catch(async (error: unknown) => {
        await connection.query('ROLLBACK').catch(() => undefined);
        throw error;
      });
      await session.commit();
    },
    async begin(work) {
      await connection.query('START TRANSACTION');
      await run(work);
    },
    async commit() {
      await connection.query('COMMIT');
    },
    async addColumn(spec, column, fill) {
      const fillSql = fill === undefined || fill === null ? '' : ` DEFAULT ${connection.escape(parameter(fill, column.type))}`;
      await connection.query(`ALTER TABLE ${mysqlTable(spec)} ADD COLUMN ${quote(column.name)} ${mysqlType(column)}${column.nullable === false ? ' NOT NULL' : ' NULL'}${fillSql}`);
    },
    async readRows(spec, where): Promise<CanonicalRow[]> {
      const statement = new Statement();
      const filter = where === undefined ? '' : ` WHERE ${statement.condition(spec, where)}`;
      const columns = spec.columns.map((column) => canonicalText(column.type, column.name)).join(', ');
      const [rows] = await connection.query<RowDataPacket[]>({ sql: `SELECT ${columns} FROM ${mysqlTable(spec)}${filter}`, rowsAsArray: true, typeCast: (field) => field.string('utf8') }, statement.values);
      return (rows as unknown as (string | null)[][]).map((row) => row.map((text, index) => canonical(spec.columns[index]?.type ?? 'text', text)));
    },
    digest: async (spec, where) => digestOf(await session.readRows(spec, where)),
    isConflict: (error) => CONFLICT_NUMBERS.has((error as { errno?: number }).errno ?? 0),
    expireChanges: () => purgeBinaryLogs(connection),
    close: () => connection.end(),
  };
  return session;
}

/**
 * The MariaDB servers of each stack, source and staging (a suite's schemas are databases, named alike in every stack and
 * in staging, so each stack has two servers of its own), started by its first source session and stopped when its last
 * one closes; killed at exit.
 */
export class SuiteMariaDbs<Stack extends object> {
  private readonly servers = new WeakMap<Stack, { server: Promise<[PrivateMariaDb, PrivateMariaDb]>; sessions: number }>();
  private readonly started = new Set<PrivateMariaDb>();

  constructor() {
    process.once('exit', () => {
      for (const server of this.started) server.kill();
    });
  }

  /** The stack's server's connection string for the service: every database of the server (no database named). */
  connectionString(stack: Stack): string {
    const port = this.ports.get(stack);
    if (port === undefined) throw new Error('the MariaDB source of this stack is made by its first source session: open it before creating a replication');
    return `mysql://root@127.0.0.1:${port.source}/`;
  }

  /** The stack's staging server's connection string (a server of its own: staging keeps the source's database names). */
  stagingConnectionString(stack: Stack): string {
    const port = this.ports.get(stack);
    if (port === undefined) throw new Error('the MariaDB staging server of this stack is made by its first source session: open it before creating a replication');
    return `mysql://root@127.0.0.1:${port.staging}/`;
  }

  async openSession(stack: Stack): Promise<SourceSession> {
    let entry = this.servers.get(stack);
    if (entry === undefined) {
      const started = PrivateMariaDb.start().then(async (source) => [source, await PrivateMariaDb.start()] as [PrivateMariaDb, PrivateMariaDb]);
      entry = { server: started, sessions: 0 };
      this.servers.set(stack, entry);
    }
    entry.sessions += 1;
    const [server, staging] = await entry.server;
    this.started.add(server);
    this.started.add(staging);
    this.ports.set(stack, { source: server.port, staging: staging.port });
    const session = await openMysqlSource(server);
    const counted = entry;
    return {
      ...session,
      close: async () => {
        await session.close();
        counted.sessions -= 1;
        if (counted.sessions > 0) return;
        this.servers.delete(stack);
        this.started.delete(server);
        this.started.delete(staging);
        await Promise.all([server.stop(), staging.stop()]);
      },
    };
  }

  private readonly ports = new WeakMap<Stack, { source: number; staging: number }>();
}
