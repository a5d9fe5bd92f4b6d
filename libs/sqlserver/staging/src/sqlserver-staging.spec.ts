import { Portable, type BatchDescriptor, type TableDefinition } from '@svc/contracts';
import { ColumnTypeChangeError, ForeignTableError, OwnObjectMissingError, type CsvChunks } from '@svc/engines';
import type { CsvField, TransactionOutcome, TsqlDatabase, TsqlParams, TsqlSession } from '@svc/sqlserver/common';
import {
  CURRENT_SEED_SQL,
  HAS_APPLIED_SQL,
  NAMED_BY_EARLIER_VERSION_SQL,
  OWNED_TABLE_SQL,
  PRIMARY_KEY_NAME_SQL,
  RAISE_FENCE_SQL,
  RECORD_BATCH_SQL,
  RECORD_OWNED_TABLE_SQL,
  SHARED_TABLE_SQL,
  TABLE_COLUMNS_SQL,
  TABLE_COLUMN_TYPES_SQL,
} from './staging-sql';
import { SqlServerStaging } from './sqlserver-staging';

/**
 * The protocol's decisions (which statements a batch runs, when rows are read, commit or roll back) against
 * a scripted database that records what it is sent. The statements themselves are reviewed in the
 * staging-sql snapshots; whether SQL Server runs them as intended needs a live server (MSSQL_URL).
 */
interface Script {
  fenceStale?: boolean;
  appliedBefore?: boolean;
  shared?: boolean;
  currentSeed?: { seed_id: string; truncated: number; superseded: number };
  existingColumns?: string[];
  /** svc_staging.owned_tables names the table. */
  owned?: boolean;
  /** A fence or seed record of an earlier version names the table. */
  namedByEarlierVersion?: boolean;
  /** The first statement that starts with `prefix` fails with this SQL Server error number. */
  failOnce?: { prefix: string; number: number };
  /** The staging table's catalog (sys.columns and its primary key), which ALTER TABLE changes as SQL Server does. */
  catalog?: Catalog;
}

interface CatalogColumn {
  name: string;
  type_name: string;
  max_length: number;
  precision: number;
  scale: number;
  is_nullable: number;
  key_ordinal: number | null;
  /** sys.columns.collation_name: NULL for a column that is not character-based. */
  collation_name?: string | null;
}

/** The staging database's default collation in this double. */
const DATABASE_COLLATION = 'SQL_Latin1_General_CP1_CI_AS';

interface Catalog {
  columns: CatalogColumn[];
  /** The PRIMARY KEY constraint's name; null once dropped. */
  primaryKey: string | null;
}

/** A type text as sys.columns holds it (nvarchar lengths in bytes). */
function catalogType(type: string): Pick<CatalogColumn, 'type_name' | 'max_length' | 'precision' | 'scale'> {
  const [, name = '', size, scale] = /^(\w+)(?:\((max|\d+)(?:,(\d+))?\))?$/.exec(type) ?? [];
  const bytes = size === 'max' ? -1 : Number(size ?? 0) * (name.startsWith('n') ? 2 : 1);
  const sized = ['varchar', 'nvarchar', 'char', 'nchar', 'varbinary', 'binary'].includes(name);
  return { type_name: name, max_length: sized ? bytes : 8, precision: sized ? 0 : Number(size ?? 0), scale: Number(scale ?? 0) };
}

/**
 * ALTER TABLE as SQL Server documents it (ALTER TABLE (Transact-SQL), https://learn.microsoft.com/en-us/sql/t-sql/statements/alter-table-transact-sql):
 * "The modified column can't be any one of the following: … Used in a PRIMARY KEY or [FOREIGN KEY] REFERENCES
 * constraint" (error 5074, then 4922); a column altered without NULL or NOT NULL takes the session's default, and
 * "When SET ANSI_NULL_DFLT_ON is ON, new columns created by using the ALTER TABLE and CREATE TABLE statements allow
 * null values if the nullability status of the column is not explicitly specified" (SET ANSI_NULL_DFLT_ON
 * (Transact-SQL)), which tedious sets ON (node_modules/tedious/lib/connection.js: enableAnsiNullDefault: true →
 * 'set ansi_null_dflt_on on'); a PRIMARY KEY on a nullable column is refused (error 8111, "Cannot define PRIMARY KEY
 * constraint on nullable column"; "Columns of PRIMARY KEY constraints … The columns cannot allow for null values",
 * Creating and Modifying PRIMARY KEY Constraints). And "COLLATE <collation_name>: Specifies the new collation for the
 * altered column. If not specified, the column is assigned the default collation of the database." (ALTER TABLE,
 * ALTER COLUMN): a character column altered without COLLATE loses the collation it was created with.
 */
function alterCatalog(catalog: Catalog, text: string): void {
  const refuse = (number: number, message: string) => {
    throw Object.assign(new Error(message), { number });
  };
  const alter = /^ALTER TABLE \[dbo\]\.\[Orders\] ALTER COLUMN \[(\w+)\] (\S+)(?: COLLATE (\w+))?(?: (NULL|NOT NULL))?$/.exec(text);
  if (alter) {
    const [, name, type = '', collation, nullability] = alter;
    const column = catalog.columns.find((candidate) => candidate.name === name);
    if (!column) return refuse(4924, `ALTER TABLE ALTER COLUMN failed because column '${name}' does not exist`);
    if (column.key_ordinal !== null && catalog.primaryKey !== null) {
      refuse(5074, `The object '${catalog.primaryKey}' is dependent on column '${name}'. ALTER TABLE ALTER COLUMN ${name} failed because one or more objects access this column.`);
    }
    const characterBased = /char|text/.test(type);
    Object.assign(column, catalogType(type), { is_nullable: nullability === 'NOT NULL' ? 0 : 1, collation_name: characterBased ? (collation ?? DATABASE_COLLATION) : null });
    return;
  }
  const drop = /^ALTER TABLE \[dbo\]\.\[Orders\] DROP CONSTRAINT \[(.+)\]$/.exec(text);
  if (drop) {
    if (drop[1] !== catalog.primaryKey) refuse(3728, `'${drop[1]}' is not a constraint.`);
    catalog.primaryKey = null;
    return;
  }
  const add = /^ALTER TABLE \[dbo\]\.\[Orders\] ADD CONSTRAINT \[(.+)\] PRIMARY KEY \((.+)\)$/.exec(text);
  if (add) {
    const keys = (add[2] ?? '').split(', ').map((key) => key.slice(1, -1));
    if (catalog.columns.some((column) => keys.includes(column.name) && column.is_nullable === 1)) refuse(8111, "Cannot define PRIMARY KEY constraint on nullable column in table 'Orders'.");
    catalog.primaryKey = add[1] ?? null;
  }
}

class ScriptedDatabase implements TsqlDatabase {
  readonly transcript: string[] = [];
  readonly loaded: CsvField[][] = [];
  /** The values the INSERT … SELECT stored, by column position, as sqlVariantInsert models them. */
  readonly stored: (string | null)[][] = [];
  private loadedWithOperation = false;

  constructor(private readonly script: Script = {}) {}

  query<Row extends object>(text: string, params: TsqlParams = {}): Promise<Row[]> {
    return Promise.resolve(this.answer(text, params) as Row[]);
  }

  async inTransaction<T>(work: (session: TsqlSession) => Promise<TransactionOutcome<T>>): Promise<T> {
    this.transcript.push('BEGIN TRANSACTION');
    const session: TsqlSession = {
      query: <Row extends object>(text: string, params: TsqlParams = {}) => Promise.resolve(this.answer(text, params) as Row[]),
      bulkLoad: async (table, columns, rows) => {
        this.transcript.push(`-- bulk load ${table} (${columns.join(', ')})`);
        this.loadedWithOperation = columns[0] === 'op';
        for await (const row of rows) this.loaded.push(row);
        return this.loaded.length;
      },
    };
    try {
      const outcome = await work(session);
      this.transcript.push(outcome.commit ? 'COMMIT' : 'ROLLBACK');
      return outcome.result;
    } catch (error) {
      this.transcript.push('ROLLBACK');
      throw error;
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private guardLengths(text: string): void {
    evaluateLengthGuards(text, this.loaded, this.loadedWithOperation);
  }

  /**
   * The INSERT … SELECT's text values as SQL Server stores them: `CONVERT(nvarchar(4000), x)` of a longer text keeps its
   * first 4000 characters, silently ("the conversion operation could truncate the output data", CAST and CONVERT,
   * "Truncating and rounding results"); any other expression keeps the text here.
   */
  private insertTexts(text: string): void {
    for (const row of this.loaded) {
      if (this.loadedWithOperation && row[0] === 'D') continue;
      const values = this.loadedWithOperation ? row.slice(1) : row;
      this.stored.push(values.map((value, index) => (typeof value === 'string' && text.includes(`CONVERT(nvarchar(4000), r.[c${index}])`) ? value.slice(0, 4000) : (value))));
    }
  }

  private answer(text: string, params: TsqlParams): object[] {
    const failure = this.script.failOnce;
    if (failure && text.startsWith(failure.prefix)) {
      delete this.script.failOnce;
      this.transcript.push(`-- fails with error ${failure.number}`);
      throw Object.assign(new Error(`error ${failure.number}`), { number: failure.number });
    }
    const shown = Object.keys(params).length ? `${text}\n-- ${JSON.stringify(params, (_key, value: unknown) => (value instanceof Date ? value.toISOString() : value))}` : text;
    this.transcript.push(shown);
    if (text === RAISE_FENCE_SQL) return [{ stale: this.script.fenceStale ? 1 : 0 }];
    if (text === RECORD_BATCH_SQL) return [{ recorded: this.script.appliedBefore ? 0 : 1 }];
    if (text === SHARED_TABLE_SQL) return [{ shared: this.script.shared ? 1 : 0 }];
    if (text === CURRENT_SEED_SQL) return this.script.currentSeed ? [this.script.currentSeed] : [];
    if (text === TABLE_COLUMNS_SQL) return (this.script.existingColumns ?? []).map((name) => ({ name }));
    const catalog = this.script.catalog;
    if (catalog) {
      if (text === TABLE_COLUMN_TYPES_SQL) return catalog.columns.map((column) => ({ ...column, is_clr_type: 0 }));
      if (text === PRIMARY_KEY_NAME_SQL) return catalog.primaryKey === null ? [] : [{ name: catalog.primaryKey }];
      alterCatalog(catalog, text);
    }
    this.guardLengths(text);
    if (text.startsWith('INSERT INTO ')) this.insertTexts(text);
    if (text === HAS_APPLIED_SQL) return this.script.appliedBefore ? [{ applied: 1 }] : [];
    if (text === OWNED_TABLE_SQL) return this.script.owned ? [{ owned: 1 }] : [];
    if (text === NAMED_BY_EARLIER_VERSION_SQL) return this.script.namedByEarlierVersion ? [{ named: 1 }] : [];
    return [];
  }
}

/**
 * A guard `IF EXISTS (SELECT 1 FROM #svc_batch_rows AS r WHERE LEN(r.[cN] + N'.') > K) THROW n, N'm', 1;` evaluated
 * over the bulk-loaded rows: THROW "raises an exception" with that number and message (THROW (Transact-SQL)), and LEN
 * "returns the number of characters … excluding trailing spaces" (LEN (Transact-SQL)), hence the appended '.'.
 */
function evaluateLengthGuards(text: string, loaded: readonly CsvField[][], withOperation: boolean): void {
  const guard = /IF EXISTS \(SELECT 1 FROM #svc_batch_rows AS r WHERE LEN\(r\.\[c(\d+)\] \+ N'\.'\) > (\d+)\) THROW (\d+), N'((?:[^']|'')*)', 1;/g;
  for (const [, index, limit, number, message] of text.matchAll(guard)) {
    const at = Number(index) + (withOperation ? 1 : 0);
    if (loaded.some((row) => typeof row[at] === 'string' && `${row[at]}.`.length > Number(limit))) {
      throw Object.assign(new Error((message ?? '').replace(/''/g, "'")), { number: Number(number) });
    }
  }
}

const definition: TableDefinition = {
  table: { schema: 'dbo', name: 'Orders' },
  columns: [
    { name: 'id', sourceType: 'int', portableType: Portable.integer(), nullable: false },
    { name: 'note', sourceType: 'nvarchar(200)', portableType: Portable.varchar(200), nullable: true },
  ],
  primaryKey: ['id'],
  estimatedRows: 0,
};

const changes: BatchDescriptor = {
  batchId: 'r1/dbo.Orders/c/10-12',
  replicationId: 'r1',
  epoch: 3,
  definition,
  body: { kind: 'changes', fromVersion: '10', toVersion: '12' },
};

const seedPart = (part: number, seedId = 'seed-a'): BatchDescriptor => ({
  ...changes,
  batchId: `r1/dbo.Orders/s/${seedId}/${part}`,
  body: { kind: 'seed', seedId, part, final: false, startVersion: '10' },
});

/** CSV chunks that remember whether they were read, split mid-field to exercise the streaming parser. */
function chunks(csv: string): CsvChunks & { read: boolean } {
  const source = {
    read: false,
    async *[Symbol.asyncIterator]() {
      source.read = true;
      const bytes = Buffer.from(csv);
      for (let at = 0; at < bytes.length; at += 5) yield bytes.subarray(at, at + 5);
    },
  };
  return source;
}

describe('SqlServerStaging (scripted database)', () => {
  it('applies a change batch under the table lock: fence, log, bulk load, delete changed keys, insert', async () => {
    const database = new ScriptedDatabase();
    const outcome = await new SqlServerStaging(database).applyBatch(changes, chunks('U,1,"a, ""quoted"" note"\nD,2,\nI,3,""\n'));
    expect(outcome).toEqual({ applied: true, rowCount: 3 });
    expect(database.loaded).toEqual([
      ['U', '1', 'a, "quoted" note'],
      ['D', '2', null],
      ['I', '3', ''],
    ]);
    expect(database.transcript.join('\n\n')).toMatchSnapshot();
  });

  it('refuses a stale batch without reading its rows', async () => {
    const database = new ScriptedDatabase({ fenceStale: true });
    const rows = chunks('I,1,x\n');
    expect(await new SqlServerStaging(database).applyBatch(changes, rows)).toEqual({ applied: false, rowCount: 0, stale: true });
    expect(rows.read).toBe(false);
    expect(database.transcript.at(-1)).toBe('ROLLBACK');
  });

  it('commits the raised fence of a batch applied before and drains its rows', async () => {
    const database = new ScriptedDatabase({ appliedBefore: true });
    const rows = chunks('I,1,x\n');
    expect(await new SqlServerStaging(database).applyBatch(changes, rows)).toEqual({ applied: false, rowCount: 0 });
    expect(rows.read).toBe(true);
    expect(database.loaded).toEqual([]);
    expect(database.transcript.at(-1)).toBe('COMMIT');
  });

  it('empties a table only it writes at seed part 0 and appends the rows', async () => {
    const database = new ScriptedDatabase();
    expect(await new SqlServerStaging(database).applyBatch(seedPart(0), chunks('1,a\n2,b\n'))).toEqual({ applied: true, rowCount: 2 });
    const sent = database.transcript.join('\n');
    expect(sent).toContain('TRUNCATE TABLE [dbo].[Orders]');
    expect(sent).not.toContain('DELETE t FROM');
    expect(database.transcript.join('\n\n')).toMatchSnapshot();
  });

  it('merges a seed by key into a table another replication writes, never emptying it', async () => {
    const database = new ScriptedDatabase({ shared: true });
    await new SqlServerStaging(database).applyBatch(seedPart(0), chunks('1,a\n'));
    const sent = database.transcript.join('\n');
    expect(sent).not.toContain('TRUNCATE');
    expect(sent).toContain('DELETE t FROM [dbo].[Orders]');
  });

  it('skips a later part of a seed that is no longer the current one, rolling back and draining', async () => {
    const database = new ScriptedDatabase({ currentSeed: { seed_id: 'seed-b', truncated: 1, superseded: 0 } });
    const rows = chunks('1,a\n');
    expect(await new SqlServerStaging(database).applyBatch(seedPart(2, 'seed-a'), rows)).toEqual({ applied: false, rowCount: 0 });
    expect(rows.read).toBe(true);
    expect(database.loaded).toEqual([]);
    expect(database.transcript.at(-1)).toBe('ROLLBACK');
  });

  it('appends a later part of the current seed', async () => {
    const database = new ScriptedDatabase({ currentSeed: { seed_id: 'seed-a', truncated: 1, superseded: 0 } });
    expect(await new SqlServerStaging(database).applyBatch(seedPart(1), chunks('3,c\n'))).toEqual({ applied: true, rowCount: 1 });
    expect(database.transcript.join('\n')).not.toMatch(/TRUNCATE|DELETE t FROM/);
  });

  it('creates the control schema again when it went missing, and applies the batch on the second try', async () => {
    const database = new ScriptedDatabase({ failOnce: { prefix: RAISE_FENCE_SQL, number: 208 } });
    expect(await new SqlServerStaging(database).applyBatch(changes, chunks('I,1,x\n'))).toEqual({ applied: true, rowCount: 1 });
    const creations = database.transcript.filter((statement) => statement.includes('CREATE TABLE [svc_staging].[applied_batches]'));
    expect(creations).toHaveLength(2);
  });

  it('says the control object is missing when rows were already read (they cannot be read again)', async () => {
    const database = new ScriptedDatabase({ failOnce: { prefix: 'INSERT INTO [dbo].[Orders]', number: 208 } });
    await expect(new SqlServerStaging(database).applyBatch(changes, chunks('I,1,x\n'))).rejects.toBeInstanceOf(OwnObjectMissingError);
    expect(database.transcript.filter((statement) => statement.startsWith('-- bulk load'))).toHaveLength(1);
    expect(database.transcript.at(-1)).toBe('ROLLBACK');
  });

  it('creates a missing table, and adds only the columns an existing one lacks', async () => {
    const empty = new ScriptedDatabase();
    expect(await new SqlServerStaging(empty).ensureTable(definition)).toEqual({ created: true, addedColumns: [] });
    expect(empty.transcript.join('\n')).toContain('CREATE TABLE [dbo].[Orders]');
    const older = new ScriptedDatabase({ existingColumns: ['id'], owned: true });
    expect(await new SqlServerStaging(older).ensureTable(definition)).toEqual({ created: false, addedColumns: ['note'] });
    expect(older.transcript.join('\n')).toContain('ALTER TABLE [dbo].[Orders] ADD\n  [note] nvarchar(200) NULL');
  });

  describe('a sql_variant value longer than a staging sql_variant keeps (4000 characters of nvarchar)', () => {
    const variants: TableDefinition = { ...definition, columns: [definition.columns[0], { name: 'v', sourceType: 'sql_variant', portableType: Portable.text(), nullable: true }] };
    const batch: BatchDescriptor = { ...changes, definition: variants };

    it('is refused with the table and column named, never cut', async () => {
      const database = new ScriptedDatabase();
      const applying = new SqlServerStaging(database).applyBatch(batch, chunks(`I,1,${'x'.repeat(4001)}\n`));
      await expect(applying).rejects.toMatchObject({ number: 51020, message: '[dbo].[Orders]: column v holds a sql_variant value longer than the 4000 characters a staging sql_variant column keeps' });
      expect(database.stored).toEqual([]);
    });

    it('keeps a value of exactly 4000 characters, trailing blanks included, whole', async () => {
      const database = new ScriptedDatabase();
      const value = `${'y'.repeat(3998)}  `;
      await new SqlServerStaging(database).applyBatch(batch, chunks(`I,1,${value}\n`));
      expect(database.stored).toEqual([['1', value]]);
    });
  });

  describe('a column whose type changed in the source (issue 21, item 13)', () => {
    const stagedAs = (id: string, note: string): Catalog => ({
      columns: [
        { name: 'id', ...catalogType(id), is_nullable: 0, key_ordinal: 1, collation_name: null },
        { name: 'note', ...catalogType(note), is_nullable: 1, key_ordinal: null, collation_name: DATABASE_COLLATION },
      ],
      primaryKey: 'PK__Orders__3213E83F',
    });
    const widened: TableDefinition = {
      ...definition,
      columns: [
        { name: 'id', sourceType: 'bigint', portableType: Portable.bigint(), nullable: false },
        { name: 'note', sourceType: 'nvarchar(max)', portableType: Portable.text(), nullable: true },
      ],
    };

    it('widens a key column (int → bigint) and a text column (nvarchar(100) → max): the key is dropped and added back, NOT NULL kept', async () => {
      const catalog = stagedAs('int', 'nvarchar(100)');
      const database = new ScriptedDatabase({ existingColumns: ['id', 'note'], owned: true, catalog });
      const outcome = await new SqlServerStaging(database).ensureTable(widened);
      expect(outcome).toEqual({
        created: false,
        addedColumns: [],
        schemaChanges: ['widened column id from int to bigint in staging', 'widened column note from nvarchar(100) to nvarchar(max) in staging'],
      });
      expect(catalog).toEqual({
        columns: [
          { name: 'id', ...catalogType('bigint'), is_nullable: 0, key_ordinal: 1, collation_name: null },
          { name: 'note', ...catalogType('nvarchar(max)'), is_nullable: 1, key_ordinal: null, collation_name: DATABASE_COLLATION },
        ],
        primaryKey: 'PK__Orders__3213E83F',
      });
      expect(database.transcript.at(-1)).toBe('COMMIT');
    });

    it('keeps the collation a widened text column was created with (the source column\'s)', async () => {
      const catalog = stagedAs('int', 'nvarchar(100)');
      const note = catalog.columns[1];
      if (note) note.collation_name = 'Latin1_General_100_CS_AS';
      const database = new ScriptedDatabase({ existingColumns: ['id', 'note'], owned: true, catalog });
      await new SqlServerStaging(database).ensureTable(widened);
      expect(catalog.columns[1]).toMatchObject({ ...catalogType('nvarchar(max)'), collation_name: 'Latin1_General_100_CS_AS' });
    });

    it('keeps a column wider than the source now needs, altering nothing', async () => {
      const catalog = stagedAs('bigint', 'nvarchar(max)');
      const database = new ScriptedDatabase({ existingColumns: ['id', 'note'], owned: true, catalog });
      const narrowed: TableDefinition = { ...definition, columns: [{ name: 'id', sourceType: 'int', portableType: Portable.integer(), nullable: false }, { name: 'note', sourceType: 'nvarchar(50)', portableType: Portable.varchar(50), nullable: true }] };
      expect(await new SqlServerStaging(database).ensureTable(narrowed)).toEqual({ created: false, addedColumns: [] });
      expect(database.transcript.join('\n')).not.toContain('ALTER TABLE [dbo].[Orders]');
    });

    it('stops the table, naming column, old and new type, for a change no widening follows; nothing is altered', async () => {
      const catalog = stagedAs('int', 'nvarchar(100)');
      const database = new ScriptedDatabase({ existingColumns: ['id', 'note'], owned: true, catalog });
      const retyped: TableDefinition = { ...definition, columns: [{ name: 'id', sourceType: 'int', portableType: Portable.integer(), nullable: false }, { name: 'note', sourceType: 'int', portableType: Portable.integer(), nullable: true }] };
      const ensuring = new SqlServerStaging(database).ensureTable(retyped);
      await expect(ensuring).rejects.toBeInstanceOf(ColumnTypeChangeError);
      await expect(ensuring).rejects.toThrow('[dbo].[Orders]: the type of column(s) note from nvarchar(100) to int changed in the source and the staging table cannot follow');
      expect(database.transcript.join('\n')).not.toContain('ALTER TABLE [dbo].[Orders]');
      expect(database.transcript.at(-1)).toBe('ROLLBACK');
    });
  });

  /*
   * The double answers as SQL Server documents: OBJECT_ID is NULL for a table that does not exist, so sys.columns
   * has no row for it (https://learn.microsoft.com/en-us/sql/t-sql/functions/object-id-transact-sql), and a SELECT
   * whose WHERE is false returns no row (https://learn.microsoft.com/en-us/sql/t-sql/queries/where-transact-sql).
   */
  describe('tables the service did not create', () => {
    const sentIn = (database: ScriptedDatabase, text: string) => database.transcript.filter((statement) => statement.startsWith(text));

    it('records a table it creates in the creating transaction', async () => {
      const database = new ScriptedDatabase();
      await new SqlServerStaging(database).ensureTable(definition);
      const creating = database.transcript.slice(database.transcript.lastIndexOf('BEGIN TRANSACTION'));
      const recorded = creating.findIndex((statement) => statement.startsWith(RECORD_OWNED_TABLE_SQL));
      expect(recorded).toBeGreaterThan(0);
      expect(creating.findIndex((statement) => statement.startsWith('CREATE TABLE [dbo].[Orders]'))).toBeGreaterThan(recorded);
      expect(creating.at(-1)).toBe('COMMIT');
    });

    it('refuses an existing table it has no record of: nothing is altered, the transaction rolls back', async () => {
      const database = new ScriptedDatabase({ existingColumns: ['id'] });
      const ensuring = new SqlServerStaging(database).ensureTable(definition);
      await expect(ensuring).rejects.toBeInstanceOf(ForeignTableError);
      await expect(ensuring).rejects.toThrow(
        'Staging table dbo.Orders exists and was not created by this service: it is not written. Drop or rename it, or choose another staging database or schema',
      );
      expect(database.transcript.join('\n')).not.toMatch(/ALTER TABLE \[dbo\]|CREATE TABLE \[dbo\]/);
      expect(sentIn(database, RECORD_OWNED_TABLE_SQL)).toHaveLength(0);
      expect(database.transcript.at(-1)).toBe('ROLLBACK');
    });

    it('adopts an existing table an earlier version wrote (named by its fences or seed records) and records it', async () => {
      const database = new ScriptedDatabase({ existingColumns: ['id'], namedByEarlierVersion: true });
      expect(await new SqlServerStaging(database).ensureTable(definition)).toEqual({ created: false, addedColumns: ['note'] });
      expect(sentIn(database, RECORD_OWNED_TABLE_SQL)).toHaveLength(1);
      expect(database.transcript.at(-1)).toBe('COMMIT');
    });

    it('uses a recorded table without recording it again', async () => {
      const database = new ScriptedDatabase({ existingColumns: ['id', 'note'], owned: true });
      expect(await new SqlServerStaging(database).ensureTable(definition)).toEqual({ created: false, addedColumns: [] });
      expect(sentIn(database, RECORD_OWNED_TABLE_SQL)).toHaveLength(0);
      expect(sentIn(database, NAMED_BY_EARLIER_VERSION_SQL)).toHaveLength(0);
    });
  });

  it('reads the batch log and the fences', async () => {
    const staging = new SqlServerStaging(new ScriptedDatabase({ appliedBefore: true, fenceStale: false }));
    expect(await staging.hasApplied('b')).toBe(true);
    expect(await new SqlServerStaging(new ScriptedDatabase()).hasApplied('b')).toBe(false);
    expect(await new SqlServerStaging(new ScriptedDatabase()).existingColumns(definition.table)).toBeNull();
  });
});
