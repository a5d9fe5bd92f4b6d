import type { CsvField, TransactionOutcome, TsqlDatabase, TsqlParams, TsqlSession } from '@svc/sqlserver/common';
import {
  CONTROL_SCHEMA_SQL,
  CURRENT_SEED_SQL,
  DROP_BATCH_ROWS_SQL,
  FENCE_STALE_SQL,
  FENCE_EPOCH_SQL,
  FORGET_APPLIED_BATCHES_SQL,
  forgetRecordsSql,
  HAS_APPLIED_SQL,
  NAMED_BY_EARLIER_VERSION_SQL,
  OWNED_TABLE_SQL,
  RAISE_FENCE_SQL,
  RECORD_BATCH_SQL,
  RECORD_OWNED_TABLE_SQL,
  SHARED_TABLE_SQL,
  START_SEED_SQL,
  TABLE_COLUMNS_SQL,
  TABLE_COLUMN_TYPES_SQL,
} from './staging-sql';

/**
 * A SQL Server staging database that keeps the collation of every character column and applies SQL Server's
 * documented collation rules to the staging's own statements (CREATE TABLE, ALTER TABLE ADD, the batch rows'
 * temporary table, TRUNCATE, the key DELETE and the INSERT … SELECT), and keeps the control tables those statements
 * write, so that it runs the connector contract (staging-contract.spec.ts). Each rule and its source:
 *
 *   - A column takes its COLLATE clause, else the database's default; a temporary table's columns take tempdb's
 *     default unless they say COLLATE DATABASE_DEFAULT: "All temporary stored procedures or temporary tables are
 *     created and stored in tempdb. This means that all implicit columns in temporary tables ... have collations
 *     that are different from comparable objects created in permanent tables", and "the COLLATE clause includes a
 *     database_default option to specify that a column in a temporary table uses the collation default of the
 *     current user database for the connection instead of tempdb" ("Collation and Unicode support" / "Set or
 *     change the column collation", https://learn.microsoft.com/sql/relational-databases/collations/set-or-change-the-column-collation).
 *   - A column reference has the collation label Implicit X, `expr COLLATE X` has Explicit X; Explicit wins over
 *     Implicit, and two Implicit labels of different collations have none: a comparison of them fails with
 *     Msg 468 "Cannot resolve the collation conflict between … in the equal to operation" ("Collation
 *     precedence", https://learn.microsoft.com/sql/t-sql/statements/collation-precedence-transact-sql).
 *     Only character types take part: "Objects that have other data types do not participate in collation evaluations."
 *   - A _CI_ collation compares case-insensitively, _CS_ and _BIN/_BIN2 do not ("Collation and Unicode support",
 *     https://learn.microsoft.com/sql/relational-databases/collations/collation-and-unicode-support); so a
 *     PRIMARY KEY under a _CI_ collation refuses 'a' next to 'A' (Msg 2627, violation of PRIMARY KEY constraint).
 *   - char/varchar store the code page of their collation: Unicode text assigned to them keeps only the
 *     characters of that code page, the others become '?' ("Unicode avoids the code page conversion
 *     difficulties of the non-Unicode char, varchar, and text data types", "Selecting Collations"); _UTF8
 *     collations (SQL Server 2019) store UTF-8 and keep every character.
 *   - Names of tables and columns compare under the database's collation: "Identifiers of objects in a database, such
 *     as tables, views, and column names, are assigned the default collation of the database. For example, two tables
 *     with names that differ only in case can be created in a database that has case-sensitive collation, but cannot
 *     be created in a database that has case-insensitive collation" ("Database identifiers",
 *     https://learn.microsoft.com/sql/relational-databases/databases/database-identifiers); a second column of the
 *     same name is Msg 2705 ("Column names in each table must be unique"). "Both regular and delimited identifiers
 *     must contain from 1 through 128 characters" (same page): a longer one is Msg 103.
 *   - The control tables (svc_staging) hold what the staging's statements write (fences, batch log, seed records,
 *     owned tables) and answer from it; a statement on a control table that does not exist (never created, or the
 *     database recreated: `recreate`) fails with Msg 208 "Invalid object name" (Database Engine events and errors,
 *     https://learn.microsoft.com/sql/relational-databases/errors-events/database-engine-events-and-errors-0-to-999).
 *   - A transaction rolled back leaves nothing of what it did, DDL and TRUNCATE included ("TRUNCATE TABLE can be
 *     rolled back", TRUNCATE TABLE (Transact-SQL); TsqlDatabase.inTransaction rolls back when `work` throws or says so).
 *   - A local temporary table lives until the session ends unless dropped ("All other local temporary tables are dropped
 *     automatically at the end of the current session", CREATE TABLE (Transact-SQL), Temporary tables), committed or
 *     not; CREATE TABLE of a name that exists fails with Msg 2714 "There is already an object named '%.*ls' in the
 *     database", and DROP TABLE of one that does not with Msg 3701 (Database Engine events and errors). The double
 *     is one session: #svc_batch_rows stays from one transaction to the next, as on a pooled connection.
 * A statement it does not know fails, so SQL it has not been taught to read fails the test rather than passing unread.
 */
export interface CollationServer {
  /** The server's collation, which tempdb takes. */
  tempdbCollation: string;
  /** The staging database's default collation. */
  databaseCollation: string;
}

interface Column {
  name: string;
  type: string;
  /** null for a type that has no collation. */
  collation: string | null;
  nullable: boolean;
}

interface Table {
  columns: Column[];
  primaryKey: string[];
  rows: Map<string, string | number | null>[];
}

type Value = string | number | null;
interface Typed {
  value: Value;
  /** The collation label of a character expression; null for other types. */
  label: { kind: 'implicit' | 'explicit'; collation: string } | null;
}

export class SqlServerError extends Error {
  constructor(
    readonly number: number,
    message: string,
  ) {
    super(message);
  }
}

const CHARACTER = /^(n?char|n?varchar|n?text)(\(|$)/i;
const BATCH_ROWS = '#svc_batch_rows';
/** A delimited identifier: `]` doubled inside. */
const NAME = String.raw`\[(?:[^\]]|\]\])*\]`;
const TABLE_NAME = `(#svc_batch_rows|${NAME}\\.${NAME})`;
const MAX_IDENTIFIER_CHARACTERS = 128;

/** Removes the array's items that `matches` says; how many went. */
function removeWhere<T>(items: T[], matches: (item: T) => boolean): number {
  const kept = items.filter((item) => !matches(item));
  const removed = items.length - kept.length;
  items.splice(0, items.length, ...kept);
  return removed;
}

interface Fence {
  replication: string;
  table: string;
  epoch: number;
  raisedAt: number;
}

interface SeedRecord {
  replication: string;
  table: string;
  seedId: string;
  startedAt: number;
  truncated: boolean;
}

/** What svc_staging holds; null fields are control tables that do not exist. */
interface ControlTables {
  fences: Fence[] | null;
  batches: Map<string, number> | null;
  seeds: SeedRecord[] | null;
  owned: Set<string> | null;
}

const noControlTables = (): ControlTables => ({ fences: null, batches: null, seeds: null, owned: null });

export class CollationStagingDouble implements TsqlDatabase {
  tables = new Map<string, Table>();
  private control = noControlTables();
  /** Orders seed records and fences as SYSUTCDATETIME() would (a clock that only moves forward). */
  private clock = Date.now();

  constructor(private readonly server: CollationServer) {}

  /** The database dropped and created again under the open connections: every table and control table gone. */
  recreate(): void {
    this.tables = new Map();
    this.control = noControlTables();
  }

  query<Row extends object>(text: string, params: TsqlParams = {}): Promise<Row[]> {
    return Promise.resolve().then(() => this.run(text, params) as Row[]);
  }

  async inTransaction<T>(work: (session: TsqlSession) => Promise<TransactionOutcome<T>>): Promise<T> {
    const session: TsqlSession = {
      query: (text, params) => this.query(text, params),
      bulkLoad: async (table, columns, rows) => {
        const target = this.table(table);
        let count = 0;
        for await (const row of rows) {
          target.rows.push(new Map(columns.map((column, index) => [column, this.assign(target, column, row[index] ?? null)])));
          count += 1;
        }
        return count;
      },
    };
    const before = structuredClone({ tables: this.tables, control: this.control });
    const rollBack = () => {
      this.tables = before.tables;
      this.control = before.control;
    };
    try {
      const outcome = await work(session);
      if (!outcome.commit) rollBack();
      return outcome.result;
    } catch (error) {
      rollBack();
      throw error;
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  /** The rows of a table, column name to value. */
  rowsOf(table: string): Record<string, Value>[] {
    return this.table(table).rows.map((row) => Object.fromEntries(row));
  }

  /** The rows of a table as text (null for NULL) in the table's column order; [] when it does not exist. */
  textRows(schema: string, name: string): (string | null)[][] {
    const table = this.tables.get(this.keyOf(schema, name));
    if (table === undefined) return [];
    return table.rows.map((row) => table.columns.map((column) => {
      const value = row.get(column.name) ?? null;
      return value === null ? null : String(value);
    }));
  }

  /** The key a table is found by: its schema and name as the database's collation compares them. */
  private keyOf(schema: string, name: string): string {
    const fold = (text: string) => (/_CI_/.test(this.server.databaseCollation) ? text.toLowerCase() : text);
    return JSON.stringify([fold(schema), fold(name)]);
  }

  /** `[schema].[name]` (or the batch rows' temporary table) as the key it is found by. */
  private keyOfText(qualified: string): string {
    if (qualified === BATCH_ROWS) return BATCH_ROWS;
    const [schema = '', name = ''] = (qualified.match(new RegExp(NAME, 'g')) ?? []).map(unquote);
    return this.keyOf(schema, name);
  }

  private sameName(a: string, b: string): boolean {
    return /_CI_/.test(this.server.databaseCollation) ? a.toLowerCase() === b.toLowerCase() : a === b;
  }

  /** The control statements' answers, from the control tables; undefined for a statement that is not one. */
  private controlAnswer(text: string, params: TsqlParams): object[] | undefined {
    const index = CONTROL_SCHEMA_SQL.indexOf(text);
    if (index >= 0) {
      const control = this.control;
      if (index === 1) control.batches ??= new Map();
      if (index === 2) control.seeds ??= [];
      if (index === 3) control.owned ??= new Set();
      if (index === 4) control.fences ??= [];
      return [];
    }
    const replication = String(params['replication']);
    const table = this.keyOf(String(params['schema']), String(params['name']));
    const epoch = Number(params['epoch']);
    const ownFence = () => this.fences().find((fence) => fence.replication === replication && fence.table === table);
    for (const oneTable of [true, false]) {
      // DELETE … WITH (READPAST): a double of one session never meets a row another holds.
      const forgets = (record: { replication: string; table: string }) => record.replication === replication && (!oneTable || record.table === table);
      if (text === forgetRecordsSql('table_fences', oneTable)) return [{ forgotten: removeWhere(this.fences(), forgets) }];
      if (text === forgetRecordsSql('table_seeds', oneTable)) return [{ forgotten: removeWhere(this.seeds(), forgets) }];
    }
    switch (text) {
      case RAISE_FENCE_SQL: {
        const fence = ownFence();
        if (fence !== undefined && fence.epoch > epoch) return [{ stale: 1 }];
        this.clock += 1;
        if (fence === undefined) this.fences().push({ replication, table, epoch, raisedAt: this.clock });
        else Object.assign(fence, { epoch, raisedAt: this.clock });
        return [{ stale: 0 }];
      }
      case FENCE_STALE_SQL: {
        const fence = ownFence();
        return fence === undefined ? [] : [{ stale: fence.epoch > epoch ? 1 : 0 }];
      }
      case FENCE_EPOCH_SQL: {
        const fence = ownFence();
        return fence === undefined ? [] : [{ epoch: fence.epoch }];
      }
      case RECORD_BATCH_SQL: {
        const batchId = String(params['batch_id']);
        if (this.batches().has(batchId)) return [{ recorded: 0 }];
        this.batches().set(batchId, Date.now());
        return [{ recorded: 1 }];
      }
      case HAS_APPLIED_SQL:
        return this.batches().has(String(params['batch_id'])) ? [{ applied: 1 }] : [];
      case `${FORGET_APPLIED_BATCHES_SQL};\nSELECT @@ROWCOUNT AS forgotten`: {
        const before = (params['before'] as Date).getTime();
        const forgotten = [...this.batches()].filter(([, appliedAt]) => appliedAt < before);
        for (const [batchId] of forgotten) this.batches().delete(batchId);
        return [{ forgotten: forgotten.length }];
      }
      case SHARED_TABLE_SQL: {
        const weekAgo = this.clock - 7 * 24 * 60 * 60_000;
        return [{ shared: this.fences().some((fence) => fence.table === table && fence.replication !== replication && fence.raisedAt > weekAgo) ? 1 : 0 }];
      }
      case START_SEED_SQL: {
        this.clock += 1;
        const seed = this.seeds().find((record) => record.replication === replication && record.table === table);
        const started = { seedId: String(params['seed_id']), startedAt: this.clock, truncated: params['truncated'] === true };
        if (seed === undefined) this.seeds().push({ replication, table, ...started });
        else Object.assign(seed, started);
        return [];
      }
      case CURRENT_SEED_SQL: {
        const own = this.seeds()
          .filter((record) => record.table === table && (record.replication === replication || record.replication === ''))
          .sort((a, b) => (a.replication < b.replication ? 1 : -1))[0];
        if (own === undefined) return [];
        const superseded = this.seeds().some((record) => record.table === table && ![replication, ''].includes(record.replication) && record.startedAt > own.startedAt);
        return [{ seed_id: own.seedId, truncated: own.truncated ? 1 : 0, superseded: superseded ? 1 : 0 }];
      }
      case OWNED_TABLE_SQL:
        return this.owned().has(table) ? [{ owned: 1 }] : [];
      case RECORD_OWNED_TABLE_SQL:
        this.owned().add(table);
        return [];
      case NAMED_BY_EARLIER_VERSION_SQL:
        return this.fences().some((fence) => fence.table === table) || this.seeds().some((seed) => seed.table === table) ? [{ named: 1 }] : [];
      default:
        return undefined;
    }
  }

  private fences(): Fence[] {
    return this.control.fences ?? missingControlTable('table_fences');
  }

  private batches(): Map<string, number> {
    return this.control.batches ?? missingControlTable('applied_batches');
  }

  private seeds(): SeedRecord[] {
    return this.control.seeds ?? missingControlTable('table_seeds');
  }

  private owned(): Set<string> {
    return this.control.owned ?? missingControlTable('owned_tables');
  }

  collationOf(table: string, column: string): string | null {
    return this.column(this.table(table), column).collation;
  }

  private run(text: string, params: TsqlParams): object[] {
    if (text.startsWith('DECLARE @granted int;')) return [];
    const answer = this.controlAnswer(text, params);
    if (answer !== undefined) return answer;
    const named = this.tables.get(this.keyOf(String(params['schema']), String(params['name'])));
    if (text === TABLE_COLUMNS_SQL) return named ? named.columns.map((column) => ({ name: column.name })) : [];
    if (text === TABLE_COLUMN_TYPES_SQL) return named ? named.columns.map((column) => catalogRow(column, named.primaryKey.indexOf(column.name) + 1)) : [];
    if (text.startsWith('IF SCHEMA_ID(')) return [];
    const dropsBatchRows = `;\n${DROP_BATCH_ROWS_SQL}`;
    if (text.endsWith(dropsBatchRows)) {
      const answer = this.run(text.slice(0, -dropsBatchRows.length), params);
      if (!this.tables.delete(BATCH_ROWS)) throw new SqlServerError(3701, `Cannot drop the table '${BATCH_ROWS}', because it does not exist or you do not have permission.`);
      return answer;
    }
    if (text.startsWith(`IF OBJECT_ID(N'tempdb..${BATCH_ROWS}')`)) {
      this.tables.delete(BATCH_ROWS);
      return this.run(text.slice(text.indexOf('\n') + 1), params);
    }
    if (text.startsWith('CREATE TABLE ')) return this.createTable(text);
    if (text.startsWith('ALTER TABLE ')) return this.addColumns(text);
    if (text.startsWith('TRUNCATE TABLE ')) {
      this.table(text.slice('TRUNCATE TABLE '.length)).rows = [];
      return [];
    }
    if (text.startsWith('DELETE t FROM ')) return this.deleteKeys(text);
    if (text.startsWith('INSERT INTO ')) return this.insertRows(text);
    throw new Error(`the collation double does not read: ${text.slice(0, 120)}`);
  }

  private createTable(text: string): object[] {
    const match = new RegExp(String.raw`^CREATE TABLE ${TABLE_NAME} \(\n([\s\S]*)\n\)$`).exec(text);
    if (!match) throw new Error(`unreadable CREATE TABLE: ${text}`);
    const name = match[1] ?? '';
    const table: Table = { columns: [], primaryKey: [], rows: [] };
    for (const line of (match[2] ?? '').split(',\n')) {
      const key = /^\s*PRIMARY KEY \((.*)\)$/.exec(line);
      if (key) table.primaryKey = names(key[1] ?? '');
      else this.addColumn(table, this.columnOf(line, name.startsWith('#')));
    }
    if (this.tables.has(this.keyOfText(name))) throw new SqlServerError(2714, `There is already an object named '${name}' in the database.`);
    this.tables.set(this.keyOfText(name), table);
    return [];
  }

  private addColumns(text: string): object[] {
    const match = new RegExp(String.raw`^ALTER TABLE ${TABLE_NAME} ADD\n([\s\S]*)$`).exec(text);
    if (!match) throw new Error(`unreadable ALTER TABLE: ${text}`);
    const table = this.table(match[1] ?? '');
    for (const line of (match[2] ?? '').split(',\n')) this.addColumn(table, this.columnOf(line, false));
    return [];
  }

  private addColumn(table: Table, column: Column): void {
    if ([...column.name].length > MAX_IDENTIFIER_CHARACTERS) {
      throw new SqlServerError(103, `The identifier that starts with '${column.name.slice(0, MAX_IDENTIFIER_CHARACTERS)}' is too long. Maximum length is ${MAX_IDENTIFIER_CHARACTERS}.`);
    }
    if (table.columns.some((existing) => this.sameName(existing.name, column.name))) {
      throw new SqlServerError(2705, `Column names in each table must be unique. Column name '${column.name}' in table is specified more than once.`);
    }
    table.columns.push(column);
  }

  private columnOf(line: string, temporary: boolean): Column {
    const match = new RegExp(String.raw`^\s*(${NAME}) (\S+?)(?: COLLATE (\w+))? (NOT )?NULL$`).exec(line);
    if (!match) throw new Error(`unreadable column: ${line}`);
    const type = match[2] ?? '';
    const declared = match[3];
    const fallback = temporary ? this.server.tempdbCollation : this.server.databaseCollation;
    const collation = !CHARACTER.test(type) ? null : declared === undefined ? fallback : declared === 'DATABASE_DEFAULT' ? this.server.databaseCollation : declared;
    return { name: unquote(match[1] ?? ''), type, collation, nullable: match[4] === undefined };
  }

  private deleteKeys(text: string): object[] {
    const match = new RegExp(String.raw`^DELETE t FROM ${TABLE_NAME} AS t\nWHERE EXISTS \(SELECT 1 FROM #svc_batch_rows AS r WHERE (.*)\)$`, 's').exec(text);
    if (!match) throw new Error(`unreadable DELETE: ${text}`);
    const table = this.table(match[1] ?? '');
    const batch = this.table(BATCH_ROWS);
    const conditions = (match[2] ?? '').split(' AND ').map((condition) => {
      const parts = new RegExp(String.raw`^t\.(${NAME}) = (.+)$`).exec(condition);
      if (!parts) throw new Error(`unreadable key condition: ${condition}`);
      return { column: this.column(table, unquote(parts[1] ?? '')), expression: parts[2] ?? '' };
    });
    // SQL Server resolves the collation of each comparison when it compiles the statement, rows or not.
    const collations = conditions.map(({ column, expression }) => comparisonCollation(column, this.evaluate(expression, new Map(), batch)));
    table.rows = table.rows.filter(
      (row) =>
        !batch.rows.some((batchRow) =>
          conditions.every(({ column, expression }, index) => equal(row.get(column.name) ?? null, this.evaluate(expression, batchRow, batch).value, collations[index] ?? null)),
        ),
    );
    return [];
  }

  private insertRows(text: string): object[] {
    const match = new RegExp(String.raw`^INSERT INTO ${TABLE_NAME} \((.*)\)\nSELECT ([\s\S]*)\nFROM #svc_batch_rows AS r(\nWHERE r\.\[op\] <> N'D')?$`).exec(text);
    if (!match) throw new Error(`unreadable INSERT: ${text}`);
    const table = this.table(match[1] ?? '');
    const batch = this.table(BATCH_ROWS);
    const columnNames = names(match[2] ?? '');
    const expressions = (match[3] ?? '').split(',\n  ');
    for (const batchRow of batch.rows) {
      if (match[4] !== undefined && batchRow.get('op') === 'D') continue;
      const row = new Map(columnNames.map((name, index) => [this.column(table, name).name, this.assign(table, name, this.evaluate(expressions[index] ?? '', batchRow, batch).value)]));
      const duplicate = table.rows.some(
        (existing) => table.primaryKey.length > 0 && table.primaryKey.every((key) => equal(existing.get(key) ?? null, row.get(key) ?? null, this.column(table, key).collation)),
      );
      if (duplicate) throw new SqlServerError(2627, `Violation of PRIMARY KEY constraint. Cannot insert duplicate key in object '${match[1] ?? ''}'.`);
      table.rows.push(row);
    }
    return [];
  }

  /** The expressions the staging writes over the batch rows: r.[cN], CONVERT(type, …), … COLLATE name. */
  private evaluate(expression: string, row: Map<string, Value>, batch: Table): Typed {
    const collated = /^(.*) COLLATE (\w+)$/.exec(expression);
    if (collated) {
      const inner = this.evaluate(collated[1] ?? '', row, batch);
      if (inner.label === null) throw new SqlServerError(447, 'Expression type is invalid for COLLATE clause.');
      const name = collated[2] === 'DATABASE_DEFAULT' ? this.server.databaseCollation : (collated[2] ?? '');
      return { value: inner.value, label: { kind: 'explicit', collation: name } };
    }
    const converted = /^CONVERT\(([\w]+(?:\([\w,]+\))?), (.*)\)$/.exec(expression);
    if (converted && !CHARACTER.test(converted[1] ?? '')) {
      const inner = this.evaluate(converted[2] ?? '', row, batch);
      return { value: inner.value === null ? null : Number(inner.value), label: null };
    }
    const reference = new RegExp(String.raw`^r\.(${NAME})$`).exec(expression);
    if (reference) {
      const column = this.column(batch, unquote(reference[1] ?? ''));
      return { value: row.get(column.name) ?? null, label: column.collation === null ? null : { kind: 'implicit', collation: column.collation } };
    }
    throw new Error(`the collation double does not evaluate: ${expression}`);
  }

  /** The value a column stores when `value` is assigned to it: char/varchar keep their code page only. */
  private assign(table: Table, name: string, value: CsvField | Value): Value {
    const column = this.column(table, name);
    if (typeof value !== 'string' || column.collation === null || /^n/i.test(column.type)) return value;
    return [...value].map((character) => (inCodePage(character, column.collation ?? '') ? character : '?')).join('');
  }

  private table(name: string): Table {
    const table = this.tables.get(this.keyOfText(name));
    if (!table) throw new SqlServerError(208, `Invalid object name '${name}'.`);
    return table;
  }

  private column(table: Table, name: string): Column {
    const column = table.columns.find((candidate) => this.sameName(candidate.name, name));
    if (!column) throw new SqlServerError(207, `Invalid column name '${name}'.`);
    return column;
  }
}

const unquote = (quoted: string) => quoted.slice(1, -1).replace(/\]\]/g, ']');
/** The delimited names of a list (`[a], [b]`), unquoted. */
const names = (list: string) => (list.match(new RegExp(NAME, 'g')) ?? []).map(unquote);

function missingControlTable(name: string): never {
  throw new SqlServerError(208, `Invalid object name 'svc_staging.${name}'.`);
}

/** The collation a comparison of the column with the expression runs under, or Msg 468. */
function comparisonCollation(column: Column, expression: Typed): string | null {
  if (column.collation === null || expression.label === null) return null;
  if (expression.label.kind === 'explicit') return expression.label.collation;
  if (expression.label.collation === column.collation) return column.collation;
  throw new SqlServerError(468, `Cannot resolve the collation conflict between "${expression.label.collation}" and "${column.collation}" in the equal to operation.`);
}

function equal(left: Value, right: Value, collation: string | null): boolean {
  if (left === null || right === null) return false;
  if (collation !== null && /_CI_/.test(collation)) return String(left).toLowerCase() === String(right).toLowerCase();
  return left === right;
}

/** Windows code pages of the collations the tests use: 1252 (Latin1_General, SQL_Latin1_General_CP1), 1251 (Cyrillic_General). */
function inCodePage(character: string, collation: string): boolean {
  if (/_UTF8$/i.test(collation)) return true;
  const code = character.codePointAt(0) ?? 0;
  if (code < 0x80) return true;
  if (/^Cyrillic_General/i.test(collation)) return code >= 0x0400 && code <= 0x045f;
  return code <= 0xff;
}

/** A column as sys.columns describes it (TABLE_COLUMN_TYPES_SQL): lengths in bytes, -1 for max. */
function catalogRow(column: Column, keyOrdinal: number): object {
  const [, typeName = '', size, scale] = /^(\w+)(?:\((max|\d+)(?:,\s*(\d+))?\))?$/.exec(column.type) ?? [];
  const sized = /char|binary/.test(typeName);
  const bytes = size === 'max' ? -1 : Number(size ?? 0) * (typeName.startsWith('n') ? 2 : 1);
  return {
    name: column.name,
    type_name: typeName,
    is_clr_type: 0,
    max_length: sized ? bytes : 8,
    precision: sized ? 0 : Number(size ?? 0),
    scale: Number(scale ?? 0),
    is_nullable: column.nullable ? 1 : 0,
    key_ordinal: keyOrdinal > 0 ? keyOrdinal : null,
    collation_name: column.collation,
  };
}
