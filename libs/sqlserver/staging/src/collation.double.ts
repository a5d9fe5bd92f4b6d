import type { CsvField, TransactionOutcome, TsqlDatabase, TsqlParams, TsqlSession } from '@svc/sqlserver-common';
import { CURRENT_SEED_SQL, OWNED_TABLE_SQL, RAISE_FENCE_SQL, RECORD_BATCH_SQL, SHARED_TABLE_SQL, TABLE_COLUMNS_SQL, TABLE_COLUMN_TYPES_SQL } from './staging-sql';

/**
 * A SQL Server staging database that keeps the collation of every character column and applies SQL Server's
 * documented collation rules to the staging's own statements (CREATE TABLE, ALTER TABLE ADD, the batch rows'
 * temporary table, TRUNCATE, the key DELETE and the INSERT … SELECT). Control-table statements get the answers
 * of a fresh staging database. Each rule and its source:
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

export class CollationStagingDouble implements TsqlDatabase {
  readonly tables = new Map<string, Table>();

  constructor(private readonly server: CollationServer) {}

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
    return (await work(session)).result;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  /** The rows of a table, column name to value. */
  rowsOf(table: string): Record<string, Value>[] {
    return this.table(table).rows.map((row) => Object.fromEntries(row));
  }

  collationOf(table: string, column: string): string | null {
    return this.column(this.table(table), column).collation;
  }

  private run(text: string, params: TsqlParams): object[] {
    if (text.startsWith('DECLARE @granted int;')) return [];
    if (text === RAISE_FENCE_SQL) return [{ stale: 0 }];
    if (text === RECORD_BATCH_SQL) return [{ recorded: 1 }];
    if (text === SHARED_TABLE_SQL) return [{ shared: 0 }];
    if (text === CURRENT_SEED_SQL) return [];
    const named = this.tables.get(`[${String(params['schema'])}].[${String(params['name'])}]`);
    if (text === TABLE_COLUMNS_SQL) return named ? named.columns.map((column) => ({ name: column.name })) : [];
    if (text === TABLE_COLUMN_TYPES_SQL) return named ? named.columns.map((column) => catalogRow(column, named.primaryKey.indexOf(column.name) + 1)) : [];
    // Every table of this database was created through it, so the service owns each one that exists.
    if (text === OWNED_TABLE_SQL) return named ? [{ owned: 1 }] : [];
    if (text.includes('svc_staging') || text.startsWith('IF SCHEMA_ID(')) return [];
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
    const match = /^CREATE TABLE (\S+) \(\n([\s\S]*)\n\)$/.exec(text);
    if (!match) throw new Error(`unreadable CREATE TABLE: ${text}`);
    const name = match[1] ?? '';
    const table: Table = { columns: [], primaryKey: [], rows: [] };
    for (const line of (match[2] ?? '').split(',\n')) {
      const key = /^\s*PRIMARY KEY \((.*)\)$/.exec(line);
      if (key) table.primaryKey = (key[1] ?? '').split(', ').map(unquote);
      else table.columns.push(this.columnOf(line, name.startsWith('#')));
    }
    this.tables.set(name, table);
    return [];
  }

  private addColumns(text: string): object[] {
    const match = /^ALTER TABLE (\S+) ADD\n([\s\S]*)$/.exec(text);
    if (!match) throw new Error(`unreadable ALTER TABLE: ${text}`);
    const table = this.table(match[1] ?? '');
    for (const line of (match[2] ?? '').split(',\n')) table.columns.push(this.columnOf(line, false));
    return [];
  }

  private columnOf(line: string, temporary: boolean): Column {
    const match = /^\s*(\[(?:[^\]]|\]\])+\]) (\S+?)(?: COLLATE (\w+))? (NOT )?NULL$/.exec(line);
    if (!match) throw new Error(`unreadable column: ${line}`);
    const type = match[2] ?? '';
    const declared = match[3];
    const fallback = temporary ? this.server.tempdbCollation : this.server.databaseCollation;
    const collation = !CHARACTER.test(type) ? null : declared === undefined ? fallback : declared === 'DATABASE_DEFAULT' ? this.server.databaseCollation : declared;
    return { name: unquote(match[1] ?? ''), type, collation, nullable: match[4] === undefined };
  }

  private deleteKeys(text: string): object[] {
    const match = /^DELETE t FROM (\S+) AS t\nWHERE EXISTS \(SELECT 1 FROM #svc_batch_rows AS r WHERE (.*)\)$/s.exec(text);
    if (!match) throw new Error(`unreadable DELETE: ${text}`);
    const table = this.table(match[1] ?? '');
    const batch = this.table(BATCH_ROWS);
    const conditions = (match[2] ?? '').split(' AND ').map((condition) => {
      const parts = /^t\.(\[(?:[^\]]|\]\])+\]) = (.+)$/.exec(condition);
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
    const match = /^INSERT INTO (\S+) \((.*)\)\nSELECT ([\s\S]*)\nFROM #svc_batch_rows AS r(\nWHERE r\.\[op\] <> N'D')?$/.exec(text);
    if (!match) throw new Error(`unreadable INSERT: ${text}`);
    const table = this.table(match[1] ?? '');
    const batch = this.table(BATCH_ROWS);
    const names = (match[2] ?? '').split(', ').map(unquote);
    const expressions = (match[3] ?? '').split(',\n  ');
    for (const batchRow of batch.rows) {
      if (match[4] !== undefined && batchRow.get('op') === 'D') continue;
      const row = new Map(names.map((name, index) => [name, this.assign(table, name, this.evaluate(expressions[index] ?? '', batchRow, batch).value)]));
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
    const reference = /^r\.(\[(?:[^\]]|\]\])+\])$/.exec(expression);
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
    const table = this.tables.get(name);
    if (!table) throw new SqlServerError(208, `Invalid object name '${name}'.`);
    return table;
  }

  private column(table: Table, name: string): Column {
    const column = table.columns.find((candidate) => candidate.name === name);
    if (!column) throw new SqlServerError(207, `Invalid column name '${name}'.`);
    return column;
  }
}

const unquote = (quoted: string) => quoted.slice(1, -1).replace(/\]\]/g, ']');

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
