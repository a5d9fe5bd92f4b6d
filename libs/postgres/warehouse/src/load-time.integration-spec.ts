import { holdStatement } from '@svc/testing';
import { Client } from 'pg';
import { WAREHOUSE_SESSION_OPTIONS } from './postgres-warehouse';
import { WarehouseFixture, changeBatch, column, table } from './testing/warehouse-fixture';

/**
 * A load's stamp on PostgreSQL: now() is "the start time of the current transaction"
 * (https://www.postgresql.org/docs/current/functions-datetime.html#FUNCTIONS-DATETIME-CURRENT), and a load's transaction
 * starts before it waits for its table's lock. A load that began first but got the lock second must still stamp after
 * the load it waited for, or it closes that load's version before the version began.
 */
let fixture: WarehouseFixture;

beforeAll(async () => {
  fixture = await WarehouseFixture.start('wh_load_time');
});

afterAll(async () => {
  await fixture.stop();
});

const codes = table('public', 'codes', [column('code', 'text'), column('label', 'text')], ['code']);

it('Type2: a load whose transaction started first but got the lock second stamps after the load it waited for', async () => {
  const schema = fixture.newSchema();
  const options = fixture.options(schema, 'Type2', true);
  const late = fixture.connector({ statementTimeoutMs: 30_000 });
  await fixture.warehouse.ensureTable(codes, options);
  await fixture.load(changeBatch(codes, 1, 2), ['I,k,one\n'], options);
  // The later load's BEGIN reaches the server, then its table lock is held back (a slow network path) while the
  // other load begins later, takes the lock, merges and commits.
  const held = holdStatement((text, values) => text.includes('pg_advisory_xact_lock') && values[0] === `svc_sys_table:"${schema}"."codes"`);
  try {
    const waiting = fixture.load(changeBatch(codes, 3, 4), ['U,k,three\n'], options, late);
    expect(await Promise.race([held.reached.then(() => 'held'), waiting.then(() => 'ended', () => 'failed')])).toBe('held');
    await fixture.load(changeBatch(codes, 2, 3), ['U,k,two\n'], options);
    held.release();
    expect(await waiting).toEqual({ applied: true, rowCount: 1 });
  } finally {
    held.restore();
  }
  const ends = await fixture.rows<{ label: string; ends_after_it_begins: boolean; ends_where_next_begins: boolean }>(
    `SELECT label, svc_sys_valid_to > svc_sys_valid_from AS ends_after_it_begins,
       svc_sys_valid_to = lead(svc_sys_valid_from) OVER (ORDER BY svc_sys_row_id) AS ends_where_next_begins
     FROM ${schema}.codes ORDER BY svc_sys_row_id`,
  );
  expect(ends).toEqual([
    { label: 'one', ends_after_it_begins: true, ends_where_next_begins: true },
    { label: 'two', ends_after_it_begins: true, ends_where_next_begins: true },
    { label: 'three', ends_after_it_begins: null, ends_where_next_begins: null },
  ]);
  // One stamp per load: a version's update timestamp is the time of the load that closed it, or else made it.
  const [stamp] = await fixture.rows<{ same: boolean }>(`SELECT bool_and(svc_sys_update_timestamp = coalesce(svc_sys_valid_to, svc_sys_valid_from)) AS same FROM ${schema}.codes`);
  expect(stamp).toEqual({ same: true });
});

it("the warehouse's session options outrank the time zone a database gives its new sessions", async () => {
  // "In subsequent connections to this database it will appear as though SET … had been executed just before the session
  // started" (https://www.postgresql.org/docs/current/manage-ag-config.html): the sessions of a database so set start elsewhere.
  await fixture.sql.query(`ALTER DATABASE "${fixture.database.name}" SET timezone TO 'Pacific/Honolulu'`);
  const zoneOf = async (options?: string) => {
    const session = new Client({ connectionString: fixture.database.url, ...(options !== undefined && { options }) });
    await session.connect();
    try {
      return (await session.query<{ TimeZone: string }>('SHOW timezone')).rows[0]?.TimeZone;
    } finally {
      await session.end();
    }
  };
  try {
    expect(await zoneOf()).toBe('Pacific/Honolulu');
    expect(await zoneOf(WAREHOUSE_SESSION_OPTIONS)).toBe('UTC');
  } finally {
    await fixture.sql.query(`ALTER DATABASE "${fixture.database.name}" RESET timezone`);
  }
});
