import { columnTypeRelation } from '@svc/engines';
import { createTempDatabase, type TempDatabase } from '@svc/testing';
import { Client } from 'pg';
import { portableTypeOfPostgres, postgresColumnType } from './portable-types';

/** Built-in types as format_type spells them; user-defined types reach the mapping as text (catalog-sql.ts). */
const BUILT_IN_TYPES = [
  'smallint', 'integer', 'bigint', 'numeric', 'numeric(38,10)', 'numeric(5,7)', 'real', 'double precision', 'text', 'character varying',
  'character varying(40)', 'character(2)', 'bytea', 'boolean', 'date', 'time without time zone', 'time(3) without time zone',
  'time with time zone', 'timestamp without time zone', 'timestamp(0) with time zone', 'timestamp with time zone', 'interval', 'interval(3)',
  'interval day to second(2)', 'interval year to month', 'uuid', 'json', 'jsonb', 'integer[]', 'text[]', 'character varying(5)[]', 'inet', 'cidr', 'macaddr',
  'money', 'point', 'bit(3)', 'bit varying(5)', 'tsvector', 'int4range', 'xml', '"char"', 'name', 'oid', 'pg_lsn',
];

describe('PostgreSQL → portable → PostgreSQL', () => {
  let database: TempDatabase;
  let client: Client;

  beforeAll(async () => {
    database = await createTempDatabase('svc_pg_types');
    client = new Client({ connectionString: database.url });
    await client.connect();
  });

  afterAll(async () => {
    await client.end();
    await database.drop();
  });

  // A warehouse or staging table made before types were portable must read back as the same type, or the
  // type-change check would see every such column as changed.
  it('declares every built-in type exactly as format_type spells the source column', async () => {
    const columns = BUILT_IN_TYPES.map((type, index) => `c${index} ${type}`).join(', ');
    await client.query(`create table source_types (${columns})`);
    const declared = BUILT_IN_TYPES.map((_type, index) => ({ index, text: '' }));
    const source = await client.query<{ type: string }>(
      "select format_type(atttypid, atttypmod) as type from pg_attribute where attrelid = 'source_types'::regclass and attnum > 0 order by attnum",
    );
    for (const [index, row] of source.rows.entries()) declared[index].text = postgresColumnType(portableTypeOfPostgres(row.type)).type;
    await client.query(`create table copy_types (${declared.map(({ index, text }) => `c${index} ${text}`).join(', ')})`);
    const copied = await client.query<{ type: string }>(
      "select format_type(atttypid, atttypmod) as type from pg_attribute where attrelid = 'copy_types'::regclass and attnum > 0 order by attnum",
    );
    // Unbounded character varying comes back as text, which the type-change check counts as the same type.
    expect(copied.rows.map((row) => row.type)).toEqual(source.rows.map((row) => (row.type === 'character varying' ? 'text' : row.type)));
    expect(copied.rows.map((row, index) => columnTypeRelation(source.rows[index].type, row.type))).toEqual(BUILT_IN_TYPES.map(() => 'same'));
    // Only an offset is lost, which a PostgreSQL timestamptz never had (it stores the instant in UTC).
    const lost = source.rows.filter((row) => postgresColumnType(portableTypeOfPostgres(row.type)).lost !== null).map((row) => row.type);
    expect(lost).toEqual(['timestamp(0) with time zone', 'timestamp with time zone']);
  });
});
