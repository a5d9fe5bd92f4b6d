import type { BatchDescriptor, StagedFiles, TableRef } from '@svc/contracts';
import type { WarehouseTableOptions } from '@svc/engines';
import { describeWarehouseContract, type Row, type WarehouseUnderTest } from '@svc/engines/testing';
import { TEST_POSTGRES_URL, createTempDatabase } from '@svc/testing';
import { Client } from 'pg';
import { RedshiftFileRows, fileRowsLayout } from './redshift-file-rows';
import { MemoryParts, redshiftOnPostgres } from './testing/redshift-on-postgres-warehouse';

/**
 * The warehouse contract for the Redshift warehouse's statements executed on PostgreSQL (dialect 'postgres', files
 * loaded by COPY FROM STDIN, sessions that fold quoted names and ignore trailing blanks in = as Redshift does:
 * redshift-on-postgres.ts). Not a real Redshift (docs/REDSHIFT.md lists what only a cluster can confirm).
 */
const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
/**
 * "ASCII letters in standard and delimited identifiers are case-insensitive and are folded to lowercase in the
 * database" (https://docs.aws.amazon.com/redshift/latest/dg/r_names.html), written here apart from the connector's fold.
 */
const folded = (name: string) => name.replace(/[A-Z]/g, (letter) => letter.toLowerCase());


async function run<T extends object>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** The stager's rewrite for Redshift (PipelineEngine.stagedFileRows), applied to the rows as the pipeline carries them. */
function redshiftFile(batch: BatchDescriptor, csv: string): Buffer {
  const rewriter = new RedshiftFileRows(fileRowsLayout(batch));
  return Buffer.concat([...rewriter.push(Buffer.from(csv, 'utf8')), ...rewriter.end()]);
}

async function openWarehouse(): Promise<WarehouseUnderTest> {
  const database = await createTempDatabase('rs_contract');
  const connector = redshiftOnPostgres(database.url);
  const parts = new MemoryParts();
  const relation = (table: TableRef, options: WarehouseTableOptions) => `${quoted(folded(options.schema))}.${quoted(folded(connector.targetTableName(table)))}`;
  const columnNames = async (table: TableRef, options: WarehouseTableOptions) =>
    (
      await run<{ name: string }>(
        database.url,
        `SELECT attname AS name FROM pg_attribute WHERE attrelid = to_regclass(${literal(relation(table, options))})
           AND attnum > 0 AND NOT attisdropped AND attname NOT LIKE 'svc\\_sys\\_%' ORDER BY attnum`,
      )
    ).map((column) => column.name);
  return {
    connector,
    reader: parts,
    stage: async (batch: BatchDescriptor, csvParts: readonly string[]): Promise<StagedFiles> => {
      const prefix = `folder/${batch.replicationId}/${batch.batchId}`;
      const partKeys = csvParts.map((csv, index) => {
        const key = `${prefix}/part-${String(index).padStart(5, '0')}.csv.gz`;
        parts.parts.set(key, redshiftFile(batch, csv));
        return key;
      });
      return { bucket: 'bucket', manifestKey: `${prefix}/manifest.json`, partKeys };
    },
    rows: async (table, options, history = false) => {
      const columns = (await columnNames(table, options)).map((name) => `${quoted(name)}::text`);
      const type2 = options.scdType === 'Type2';
      const select = [...columns, ...(type2 && history ? ['svc_sys_is_current::text', 'svc_sys_is_deleted::text'] : [])].join(', ');
      const where = type2 && !history ? 'WHERE svc_sys_is_current' : '';
      const client = new Client({ connectionString: database.url });
      await client.connect();
      try {
        const result = await client.query({ text: `SELECT ${select} FROM ${relation(table, options)} ${where}`, rowMode: 'array' });
        return result.rows as Row[];
      } finally {
        await client.end();
      }
    },
    columnNames,
    recreateDatabase: async () => {
      await run(TEST_POSTGRES_URL, `DROP DATABASE ${quoted(database.name)} WITH (FORCE)`);
      await run(TEST_POSTGRES_URL, `CREATE DATABASE ${quoted(database.name)}`);
        },
    close: async () => {
      await connector.close();
      await database.drop();
    },
  };
}

describeWarehouseContract([
  {
    name: 'Redshift dialect on PostgreSQL',
    open: openWarehouse,
    naming: {
      // Redshift keeps 127 bytes (redshift-identifiers.ts); the PostgreSQL that plays it here keeps 63
      // ("The system uses no more than NAMEDATALEN-1 bytes of an identifier", PostgreSQL 4.1.1): the double's limit.
      longest: { bytes: 63 },
      // Folded to lowercase (r_names.html above): 'Mixed Case' and 'mixed case' are one name, stored as the latter.
      caseSensitive: false,
      stored: folded,
    },
  },
]);
