import type { BatchDescriptor, TableDefinition } from '@svc/contracts';
import { rowDigestText, type ChecksumColumn, type WarehouseConnector, type WarehouseTableOptions } from '@svc/engines';
import { REDSHIFT_CHECKSUM_DIALECT, RedshiftFileRows, RedshiftValueError, fileRowsLayout, redshiftColumnType } from '@svc/redshift/warehouse';
import { MemoryParts, RedshiftOnPostgresClient, redshiftOnPostgres } from '@svc/redshift/warehouse/testing';
import { planOfSourceType, type ColumnPlan } from '@svc/sqlserver/common';
import type { TsqlValue } from '@svc/sqlserver/common/testing';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import type { Client } from 'pg';
import { CASES, VALUES, interchangeText, tsqlCanonical, tsqlDigest, tsqlKey } from './sqlserver-checksum-values';

/*
 * SQL Server → Redshift, our users' main pair: SQL Server's digests are only right if the T-SQL canonical text of every
 * SQL Server type equals, value for value, what Redshift's dialect computes of the value as the Redshift warehouse holds
 * it. SQL Server's side runs on the T-SQL expression double (tsql-expression.double.ts, Microsoft's pages cited there).
 * Redshift's side is the Redshift warehouse connector itself on the Redshift-on-PostgreSQL double (redshift-on-postgres.ts:
 * Redshift's functions PostgreSQL lacks, STRTOL, FROM_VARBYTE and TO_VARBYTE, as shims; names folded; trailing blanks
 * insignificant to =): its DDL declares each column from the source's portable type (redshift-types.ts), the stager's
 * rewrite for Redshift (RedshiftFileRows: NULL as `\N`, every value quoted, binary as bare lower-case hex) writes the
 * file, COPY loads it and validation's own statements read the digests and look keys up by SQL Server's key texts. Where the double holds a Redshift type as another type, it is PostgreSQL's
 * nearest: VARBYTE as the hex text the file carries ("For CSV, the data is loaded from a file in hexadecimal
 * representation of the VARBYTE data", https://docs.aws.amazon.com/redshift/latest/dg/copy-usage-varbyte.html), which
 * FROM_VARBYTE(…, 'hex') returns; VARCHAR(n) counts characters where Redshift counts bytes (the rewriter refuses a value
 * longer in bytes than its column before any file is written). No column is SUPER: JSON travels as VARCHAR text.
 * What the double cannot settle (ROUND's ties, COPY's 7th fractional digit, a row text over 65535 bytes…) is listed in
 * docs/REDSHIFT.md, "What only a live cluster can confirm".
 */

const KEY_PLAN = planOfSourceType('k', 'int');
/** Redshift's widest VARCHAR, in bytes (https://docs.aws.amazon.com/redshift/latest/dg/r_Character_types.html). */
const MAX_ROW_TEXT_BYTES = 65535;
const key = (value: number): TsqlValue => ({ type: 'int', value });

/** A field of the row interchange format (row-format.ts): NULL an unquoted empty field, every other value quoted. */
const csvField = (text: string | null) => (text === null ? '' : `"${text.replace(/"/g, '""')}"`);

interface Row {
  values: readonly TsqlValue[];
}

/** Redshift's side of one row: the canonical text of each value column and the row's digest (key column included). */
interface RedshiftRow {
  texts: (string | null)[];
  digest: string;
}

let database: TempDatabase;
let warehouse: WarehouseConnector;
/** A session that behaves as Redshift (its shims on the search path): typed as pg's Client, whose query it keeps. */
let session: Client;
let tableCount = 0;
const parts = new MemoryParts();
const where: WarehouseTableOptions = { schema: 'rs_sqlserver', scdType: 'Type1', addUpdateTimestamp: false };

beforeAll(async () => {
  database = await createTempDatabase('rs_sqlserver_checksums');
  warehouse = redshiftOnPostgres(database.url);
  session = new RedshiftOnPostgresClient({ connectionString: database.url });
  await session.connect();
});

afterAll(async () => {
  await session.end();
  await warehouse.close();
  await database.drop();
});

function definitionOf(plans: readonly ColumnPlan[]): TableDefinition {
  tableCount += 1;
  const columns = [KEY_PLAN, ...plans].map((plan, index) => ({ name: index === 0 ? 'k' : `c${index - 1}`, sourceType: plan.sourceType, portableType: plan.portableType, nullable: index > 0 }));
  return { table: { schema: 'dbo', name: `t${tableCount}` }, columns, primaryKey: ['k'], estimatedRows: 0 };
}

function seedOf(definition: TableDefinition): BatchDescriptor {
  return { batchId: `${definition.table.name}:seed:A:0`, replicationId: 'r1', epoch: 1, definition, body: { kind: 'seed', seedId: 'A', part: 0, final: true, startVersion: '1' } };
}

/** The reader's CSV of the rows (key k = the row's index) rewritten for Redshift by the stager's rewriter. */
function redshiftFile(batch: BatchDescriptor, plans: readonly ColumnPlan[], rows: readonly Row[]): Buffer {
  const csv = rows.map((row, index) => `${[String(index), ...plans.map((plan, column) => interchangeText(plan, row.values[column] ?? { type: 'null' }))].map(csvField).join(',')}\n`).join('');
  const rewriter = new RedshiftFileRows(fileRowsLayout(batch));
  return Buffer.concat([...rewriter.push(Buffer.from(csv, 'utf8')), ...rewriter.end()]);
}

/** Why the stager refuses to write the value for Redshift (RedshiftValueError), null when it writes it. */
function refusalOf(plan: ColumnPlan, value: TsqlValue): string | null {
  try {
    redshiftFile(seedOf(definitionOf([plan])), [plan], [{ values: [value] }]);
    return null;
  } catch (error) {
    if (error instanceof RedshiftValueError) return error.message;
    throw error;
  }
}

/** Loads the rows into a new Redshift table of the plans' columns and reads, row by row, Redshift's canonical texts and digests. */
async function redshiftSide(plans: readonly ColumnPlan[], rows: readonly Row[]): Promise<RedshiftRow[]> {
  const definition = definitionOf(plans);
  const batch = seedOf(definition);
  const partKey = `files/${batch.batchId}/part-00000.csv.gz`;
  parts.put(partKey, redshiftFile(batch, plans, rows));
  await warehouse.ensureTable(definition, where);
  expect(await warehouse.loadBatch(batch, { bucket: 'b', manifestKey: `files/${batch.batchId}/manifest.json`, partKeys: [partKey] }, parts, where)).toEqual({ applied: true, rowCount: rows.length });

  const columns = plans.map((plan, index): ChecksumColumn => ({ sql: `t.c${index}`, type: plan.portableType, declaredType: redshiftColumnType(plan.portableType).type }));
  const texts = columns.map((column, index) => `${REDSHIFT_CHECKSUM_DIALECT.canonicalText(column)} AS text_${index}`).join(', ');
  const keyColumn: ChecksumColumn = { sql: 't.k', type: KEY_PLAN.portableType, declaredType: redshiftColumnType(KEY_PLAN.portableType).type };
  const rowText = rowDigestText(REDSHIFT_CHECKSUM_DIALECT, [keyColumn, ...columns]);
  const relation = `${where.schema}.${warehouse.targetTableName(definition.table)}`;
  const read = await session.query<Record<string, string | null>>(`SELECT t.k, ${texts}, OCTET_LENGTH(${rowText}) AS row_bytes FROM ${relation} AS t ORDER BY t.k`);
  // The row text is a VARCHAR on Redshift, at most 65535 bytes (r_Character_types.html), which PostgreSQL does not bound:
  // the proof holds for rows within it (README, "What it cannot see").
  expect(read.rows.filter((row) => Number(row['row_bytes']) > MAX_ROW_TEXT_BYTES)).toEqual([]);

  const reader = await warehouse.checksums(definition, where).openSnapshot();
  const digests = new Map<string, string>();
  try {
    for (const row of await reader.keyDigestsInSegments({ buckets: 1, subBuckets: 1 }, [0])) digests.set(row.key[0] ?? '', row.digest.toString());
  } finally {
    await reader.close();
  }
  return read.rows.map((row) => ({ texts: columns.map((_, index) => row[`text_${index}`] ?? null), digest: digests.get(String(row['k'])) ?? 'no digest' }));
}

/** SQL Server's side of the same rows. */
function sqlServerSide(plans: readonly ColumnPlan[], rows: readonly Row[]): RedshiftRow[] {
  return rows.map((row, index) => ({
    texts: plans.map((plan, column) => tsqlCanonical(plan, row.values[column] ?? { type: 'null' })),
    digest: tsqlDigest([KEY_PLAN, ...plans], [key(index), ...row.values]),
  }));
}

/** Values the stager refuses to write for Redshift: they stop their table and are never loaded, so never compared. */
const REFUSED: readonly { sourceType: string; what: string; value: TsqlValue; because: RegExp }[] = [
  // The file's NULL marker (null-marker.ts): Redshift would read it back as NULL.
  { sourceType: 'nvarchar(max)', what: 'the NULL marker', value: { type: 'text', text: '\\N' }, because: /the value \\N cannot be loaded into Redshift, which reads it as NULL/ },
  // Redshift counts VARCHAR lengths in bytes, up to 65535 (https://docs.aws.amazon.com/redshift/latest/dg/r_Character_types.html).
  { sourceType: 'nvarchar(max)', what: '65536 bytes of UTF-8', value: { type: 'text', text: '😀'.repeat(16384) }, because: /a value of 65536 bytes does not fit Redshift's 65535-byte column/ },
  // The warehouse declares binary VARBYTE(1024000) (redshift-types.ts).
  { sourceType: 'varbinary(max)', what: '1024001 bytes', value: { type: 'varbinary', bytes: Buffer.alloc(1024001, 1) }, because: /a value of 1024001 bytes does not fit Redshift's 1024000-byte column/ },
];
const sameValue = (left: TsqlValue, right: TsqlValue) => left === right || (left.type === 'text' && right.type === 'text' && left.text === right.text);
const isRefused = (sourceType: string, value: TsqlValue) => REFUSED.some((refused) => refused.sourceType === sourceType && sameValue(refused.value, value));

describe('SQL Server canonical texts equal Redshift warehouse canonical texts, value for value (T-SQL on the double, Redshift on the PostgreSQL double)', () => {
  const bySourceType = new Map<string, Promise<{ expected: RedshiftRow[]; actual: RedshiftRow[] }>>();

  /** One table per SQL Server type, all of its values (NULL last) loaded at once; indexes as CASES numbers them. */
  function compared(sourceType: string): Promise<{ expected: RedshiftRow[]; actual: RedshiftRow[] }> {
    const known = bySourceType.get(sourceType);
    if (known !== undefined) return known;
    const plan = planOfSourceType('c', sourceType);
    const values = [...(VALUES[sourceType] ?? []), { type: 'null' } as const];
    const rows = values.map((value) => ({ values: [isRefused(sourceType, value) ? ({ type: 'null' } as const) : value] }));
    const loading = redshiftSide([plan], rows).then((actual) => ({ actual, expected: sqlServerSide([plan], rows) }));
    bySourceType.set(sourceType, loading);
    return loading;
  }

  it.each(CASES.filter((entry) => !isRefused(entry.sourceType, entry.value)).map((entry) => [`${entry.sourceType} #${entry.index}${entry.value.type === 'null' ? ' (NULL)' : ''}`, entry] as const))(
    '%s',
    async (_name, { sourceType, index }) => {
      const { expected, actual } = await compared(sourceType);
      expect(actual[index]).toEqual(expected[index]);
    },
  );

  it.each(REFUSED.map((refused) => [`${refused.sourceType}, ${refused.what}`, refused] as const))('%s: a value Redshift cannot hold is refused before any file is written, so it is never compared', (_name, { sourceType, value, because }) => {
    expect(refusalOf(planOfSourceType('c', sourceType), value)).toMatch(because);
  });

  it('digests a row of every type alike: fields, separators, escapes, NULLs and UTF-8 bytes', async () => {
    const sourceTypes = Object.keys(VALUES);
    const plans = sourceTypes.map((sourceType) => planOfSourceType('c', sourceType));
    const rows = [0, 1].map((pick) => ({
      values: sourceTypes.map((sourceType) => (VALUES[sourceType] ?? []).filter((value) => !isRefused(sourceType, value))[pick] ?? ({ type: 'null' } as const)),
    }));
    expect((await redshiftSide(plans, rows)).map((row) => row.digest)).toEqual(sqlServerSide(plans, rows).map((row) => row.digest));
  });
});

/** The SQL Server types a primary key may have (no LOB, xml, spatial or json column can be a key). */
const KEY_TYPES = new Set(['int', 'bigint', 'smallint', 'tinyint', 'bit', 'decimal(38,10)', 'numeric(5,0)', 'decimal(38,38)', 'money', 'smallmoney', 'float', 'real', 'date', 'time(7)', 'time(3)', 'time(0)', 'datetime2(7)', 'datetime2(3)', 'datetime2(0)', 'datetime', 'smalldatetime', 'datetimeoffset(7)', 'datetimeoffset(0)', 'char(10)', 'nchar(10)', 'varchar(40)', 'nvarchar(40)', 'binary(16)', 'varbinary(100)', 'rowversion', 'uniqueidentifier', 'sql_variant', 'hierarchyid']);

describe('a SQL Server key is found in the Redshift warehouse by its key text, with the same key hash and digest', () => {
  /** A table whose only column, its key, is of the plan's type, holding the one value. */
  async function keyedTable(plan: ColumnPlan, value: TsqlValue): Promise<TableDefinition> {
    tableCount += 1;
    const definition: TableDefinition = {
      table: { schema: 'dbo', name: `k${tableCount}` },
      columns: [{ name: 'c0', sourceType: plan.sourceType, portableType: plan.portableType, nullable: false }],
      primaryKey: ['c0'],
      estimatedRows: 1,
    };
    const batch = seedOf(definition);
    const rewriter = new RedshiftFileRows(fileRowsLayout(batch));
    const partKey = `files/${batch.batchId}/part-00000.csv.gz`;
    parts.put(partKey, Buffer.concat([...rewriter.push(Buffer.from(`${csvField(interchangeText(plan, value))}\n`, 'utf8')), ...rewriter.end()]));
    await warehouse.ensureTable(definition, where);
    await warehouse.loadBatch(batch, { bucket: 'b', manifestKey: `files/${batch.batchId}/manifest.json`, partKeys: [partKey] }, parts, where);
    return definition;
  }

  /** Zero bytes: COPY loads them as NULL, which no key holds, so the stager refuses such a key (redshift-file-rows.ts). */
  const isEmptyBinary = (value: TsqlValue) => (value.type === 'binary' || value.type === 'varbinary') && value.bytes.length === 0;
  const keyCases = CASES.filter((entry) => KEY_TYPES.has(entry.sourceType) && entry.value.type !== 'null' && !isEmptyBinary(entry.value));

  it.each(CASES.filter((entry) => KEY_TYPES.has(entry.sourceType) && isEmptyBinary(entry.value)).map((entry) => [`${entry.sourceType} #${entry.index}`, entry] as const))(
    '%s, an empty binary key, is refused before any file is written',
    async (_name, { sourceType, value }) => {
      await expect(keyedTable(planOfSourceType('c', sourceType), value)).rejects.toThrow(/column c0: an empty binary value \(zero bytes\) in a key column cannot be loaded into Redshift/);
    },
  );

  it.each(keyCases.map((entry) => [`${entry.sourceType} #${entry.index}`, entry] as const))('%s', async (_name, { sourceType, value }) => {
    const plan = planOfSourceType('c', sourceType);
    const definition = await keyedTable(plan, value);
    const source = tsqlKey(plan, value);
    const reader = await warehouse.checksums(definition, where).openSnapshot();
    try {
      const found = await reader.digestsOfKeys(1, [{ keyHash: source.keyHash, key: [source.keyText] }]);
      expect(found.map((row) => ({ keyHash: row.keyHash, digest: row.digest.toString() }))).toEqual([{ keyHash: source.keyHash, digest: tsqlDigest([plan], [value]) }]);
      // The warehouse's key text (an extra row's) finds the row again.
      const again = await reader.digestsOfKeys(1, found.map((row) => ({ keyHash: row.keyHash, key: row.key })));
      expect(again.map((row) => row.keyHash)).toEqual([source.keyHash]);
    } finally {
      await reader.close();
    }
  });
});
