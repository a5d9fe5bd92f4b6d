import { insert, keyIs, remove, transaction, update, type Transaction } from './changes';
import type { SourceLosses } from './declared-losses';
import type { Row, TableSpec } from './table-spec';

/**
 * A table where the engines differ most: mixed-case schema, table and column names (Redshift folds them, PostgreSQL
 * keeps them), text keys that differ only by trailing blanks (Redshift's and SQL Server's = ignore them), an empty
 * binary value, and values at each type's limit that every engine of the suite holds. Its rows are the same for
 * every pair except where the source's declared losses say it cannot hold them (declared-losses.ts).
 */
export const EDGE_CASES: TableSpec = {
  schema: 'Edge_Cases',
  name: 'Limits_And_Blanks',
  columns: [
    { name: 'Code', type: 'varchar(40)', nullable: false },
    { name: 'Small_Int', type: 'int' },
    { name: 'Big_Int', type: 'bigint' },
    { name: 'Amount', type: 'decimal(38,10)' },
    { name: 'Label', type: 'varchar(40)' },
    { name: 'Happened_At', type: 'timestamptz' },
    { name: 'Blob', type: 'bytes' },
  ],
  primaryKey: ['Code'],
};

/** The widest decimal(38,10): 28 integer digits and 10 decimals. */
const MAX_DECIMAL_38_10 = `${'9'.repeat(28)}.${'9'.repeat(10)}`;
/**
 * The first and last microsecond every engine of the suite holds: SQL Server's datetimeoffset spans years 1 to 9999
 * (PostgreSQL's and Redshift's timestamps reach further, from 4713 BC).
 */
const EARLIEST_INSTANT = '0001-01-01T00:00:00.000000+00:00';
const LATEST_INSTANT = '9999-12-31T23:59:59.999999+00:00';

/** The keys of the table: `blank` ends with a blank; `plain` is the same key without it where the source keeps them apart. */
export function edgeKeys(losses: SourceLosses): { blank: string; plain: string } {
  return { blank: 'a ', plain: losses.trailingBlanksInKeys === 'kept apart' ? 'a' : 'b' };
}

export function edgeCaseRows(losses: SourceLosses): Row[] {
  const { blank, plain } = edgeKeys(losses);
  return [
    {
      Code: plain,
      Small_Int: 2147483647,
      Big_Int: 9223372036854775807n,
      Amount: MAX_DECIMAL_38_10,
      // 40 characters of 4 bytes: the most a varchar(40) holds, 160 bytes in UTF-8.
      Label: '😀'.repeat(40),
      Happened_At: LATEST_INSTANT,
      Blob: Buffer.alloc(0),
    },
    {
      Code: blank,
      Small_Int: -2147483648,
      Big_Int: -9223372036854775808n,
      Amount: `-${MAX_DECIMAL_38_10}`,
      Label: ' '.repeat(40),
      Happened_At: EARLIEST_INSTANT,
      Blob: Buffer.from([0]),
    },
    // A key of blanks only, and an empty text next to a NULL.
    { Code: '  ', Small_Int: 0, Big_Int: 0n, Amount: '0', Label: '', Happened_At: null, Blob: null },
  ];
}

/**
 * Changes that tell the blank-padded key from its twin, each its own transaction so that each can be checked on its
 * own: the key with the blank changes (its twin must not), then the twin goes (the key with the blank must stay),
 * then the twin comes back with an empty binary value.
 */
export function edgeCaseWorkload(losses: SourceLosses): Transaction[] {
  const { blank, plain } = edgeKeys(losses);
  return [
    transaction(update(EDGE_CASES, { Label: 'changed ', Small_Int: 2147483646, Blob: Buffer.alloc(0) }, keyIs('Code', blank))),
    transaction(remove(EDGE_CASES, keyIs('Code', plain))),
    transaction(insert(EDGE_CASES, [{ Code: plain, Small_Int: -1, Big_Int: -1n, Amount: '-0.0000000001', Label: 'back', Happened_At: LATEST_INSTANT, Blob: Buffer.alloc(0) }])),
  ];
}
