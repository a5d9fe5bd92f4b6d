import type { INestMicroservice } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { ErrorCode, Subjects, type ReleaseTablesRequest, type TableDefinition } from '@svc/contracts';
import { NatsRequester, connectNats, ensurePipelineStreams } from '@svc/messaging';
import { EngineRegistry } from '@svc/pipeline-runtime';
import { serveRuntimeConfigs } from '@svc/system-testing';
import { createTempDatabase, sampleReplicationConfig, startTestNats, type TempDatabase, type TestNats } from '@svc/testing';
import { Client } from 'pg';
import { startExtractor } from '../testing/extractor-harness';

const REPLICATION_ID = '0b7f5a52-3d4c-4e8f-9a61-2c5d7e8f9a10';
const UNREACHABLE_REPLICATION_ID = '5e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b';
const UNKNOWN_REPLICATION_ID = '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a';
const SECRET = 'Tr4ck1ng-S3cret';
const OTHER_REPLICATION_ID = '7c6b5a49-3827-4615-8a4b-3c2d1e0f9a8b';
/** Records listed as `own:…` before `other:…`, each by table name. */
const byReplication = (a: string, b: string) => (a.startsWith('own') === b.startsWith('own') ? a.localeCompare(b) : a.startsWith('own') ? -1 : 1);

describe('extractor: releasing change tracking (svc.extractor.v1.release-tables)', () => {
  let nats: TestNats;
  let database: TempDatabase;
  let stagingDatabase: TempDatabase;
  let db: Client;
  let app: INestMicroservice;
  let connection: NatsConnection;
  let requester: NatsRequester;
  const logLines: string[] = [];

  const triggerCount = async (table: string) =>
    (await db.query<{ n: number }>(`select count(*)::int as n from pg_trigger where tgrelid = $1::regclass and tgname like 'svc_ct_%'`, [table])).rows[0]?.n;
  const changeTableExists = async (table: string) =>
    (await db.query<{ exists: boolean }>('select to_regclass($1) is not null as exists', [`svc_ct."public.${table}"`])).rows[0]?.exists;
  const isRegistered = async (table: string) =>
    ((await db.query('select 1 from svc_ct.tracked_tables where schema = $1 and name = $2', ['public', table])).rowCount ?? 0) > 0;
  const release = (message: ReleaseTablesRequest) => requester.request(Subjects.extractorReleaseTables, message);

  beforeAll(async () => {
    nats = await startTestNats();
    database = await createTempDatabase('svc_extract_release');
    stagingDatabase = await createTempDatabase('svc_extract_release_stg');
    db = new Client({ connectionString: database.url });
    await db.connect();
    await db.query(`
      create table orders (id integer primary key, note text);
      create table lines (id integer primary key, qty integer);
      create table kept (id integer primary key);
      create table doomed (id integer primary key);
      create table never_tracked (id integer primary key);
    `);
    const engines = new EngineRegistry();
    const source = engines.source(sampleReplicationConfig({ source: { connectionString: database.url, encryptDataInTransit: false } }));
    try {
      for (const name of ['orders', 'lines', 'kept', 'doomed']) {
        const definition: TableDefinition | null = await source.describeTable({ schema: 'public', name });
        await source.enableTracking(definition!);
      }
    } finally {
      await engines.closeAll();
    }

    connection = await connectNats(nats.url, 'release-test');
    // As the registry does at its start: workers wait for the streams, only the registry makes them.
    await ensurePipelineStreams(connection);
    const unreachable = `postgres://postgres:${SECRET}@127.0.0.1:5432/svc_no_such_database_for_release`;
    serveRuntimeConfigs(
      connection,
      new Map([
        [REPLICATION_ID, sampleReplicationConfig({ source: { connectionString: database.url }, staging: { connectionString: stagingDatabase.url, encryptDataInTransit: false } })],
        [UNREACHABLE_REPLICATION_ID, sampleReplicationConfig({ source: { connectionString: unreachable } })],
      ]),
    );
    await connection.flush();
    app = await startExtractor({ NATS_URL: nats.url }, (line) => logLines.push(line));
    requester = new NatsRequester(connection, 15000);
  }, 60000);

  afterAll(async () => {
    await app?.close();
    await connection?.close();
    await db?.end();
    await database?.drop();
    await stagingDatabase?.drop();
    await nats?.stop();
  });

  it('releases the named tables: triggers, change tables and registry rows go, other tables stay tracked', async () => {
    const reply = await release({ replicationId: REPLICATION_ID, tables: [{ schema: 'public', name: 'orders' }, { schema: 'public', name: 'lines' }] });
    expect(reply).toEqual({ ok: true, value: { released: ['[public].[orders]', '[public].[lines]'] } });
    for (const table of ['orders', 'lines']) {
      expect(await triggerCount(table)).toBe(0);
      expect(await changeTableExists(table)).toBe(false);
      expect(await isRegistered(table)).toBe(false);
    }
    expect(await triggerCount('kept')).toBe(4);
    expect(await changeTableExists('kept')).toBe(true);
    await db.query("insert into orders values (1, 'written after release')");
    expect(logLines.some((line) => line.includes('released change tracking') && line.includes('[public].[orders]'))).toBe(true);
  });

  it('is idempotent: tables released before, never tracked, or dropped in the source are released without error', async () => {
    await db.query('drop table doomed');
    const reply = await release({
      replicationId: REPLICATION_ID,
      tables: [
        { schema: 'public', name: 'orders' },
        { schema: 'public', name: 'never_tracked' },
        { schema: 'public', name: 'doomed' },
        { schema: 'public', name: 'no_such_table' },
      ],
    });
    expect(reply).toEqual({ ok: true, value: { released: ['[public].[orders]', '[public].[never_tracked]', '[public].[doomed]', '[public].[no_such_table]'] } });
    expect(await changeTableExists('doomed')).toBe(false);
    expect(await isRegistered('doomed')).toBe(false);
    expect(await triggerCount('kept')).toBe(4);
  });

  it('refuses a malformed request', async () => {
    const malformed = { replicationId: REPLICATION_ID, tables: ['[public].[kept]'] } as unknown as ReleaseTablesRequest;
    const reply = await release(malformed);
    expect(reply).toEqual({ ok: false, error: { code: ErrorCode.ValidationFailed, messages: ['tables[0]: must be an object'] } });
    expect(await triggerCount('kept')).toBe(4);
  });

  it("forgets the replication's staging records when asked (of some tables, or all), leaving another replication's", async () => {
    const engines = new EngineRegistry();
    const config = sampleReplicationConfig({ source: { connectionString: database.url }, staging: { connectionString: stagingDatabase.url, encryptDataInTransit: false } });
    try {
      const staging = engines.staging(config);
      const source = engines.source(config);
      for (const name of ['kept', 'lines']) {
        const definition = (await source.describeTable({ schema: 'public', name }))!;
        await staging.ensureTable(definition);
        for (const replicationId of [REPLICATION_ID, OTHER_REPLICATION_ID]) {
          const seed = { batchId: `${replicationId}/${name}/seed`, replicationId, epoch: 1, definition, body: { kind: 'seed', seedId: 's', part: 0, final: true, startVersion: '1' } } as const;
          await staging.applyBatch(seed, (async function* () {})());
        }
      }
    } finally {
      await engines.closeAll();
    }
    const records = async () => {
      const staged = new Client({ connectionString: stagingDatabase.url });
      await staged.connect();
      try {
        const { rows } = await staged.query<{ replication_id: string; name: string }>(
          'select replication_id, name from svc_staging.table_fences union all select replication_id, name from svc_staging.table_seeds order by 1, 2',
        );
        return rows.map((row) => `${row.replication_id === REPLICATION_ID ? 'own' : 'other'}:${row.name}`);
      } finally {
        await staged.end();
      }
    };
    expect(await records()).toEqual(['own:kept', 'own:kept', 'own:lines', 'own:lines', 'other:kept', 'other:kept', 'other:lines', 'other:lines'].sort(byReplication));

    expect(await release({ replicationId: REPLICATION_ID, tables: [], forgetStagingRecords: [{ schema: 'public', name: 'lines' }] })).toEqual({ ok: true, value: { released: [], stagingRecordsForgotten: 2 } });
    expect(await records()).toEqual(['own:kept', 'own:kept', 'other:kept', 'other:kept', 'other:lines', 'other:lines'].sort(byReplication));
    expect(await release({ replicationId: REPLICATION_ID, tables: [], forgetAllStagingRecords: true })).toEqual({ ok: true, value: { released: [], stagingRecordsForgotten: 2 } });
    expect(await records()).toEqual(['other:kept', 'other:kept', 'other:lines', 'other:lines']);
    expect(logLines.some((line) => line.includes("forgot the replication's staging records"))).toBe(true);
  });

  it('answers NotFound for a replication the registry does not know', async () => {
    const reply = await release({ replicationId: UNKNOWN_REPLICATION_ID, tables: [{ schema: 'public', name: 'kept' }] });
    expect(reply.ok ? null : reply.error.code).toBe(ErrorCode.NotFound);
    expect(await triggerCount('kept')).toBe(4);
  });

  it('answers Unavailable, naming the table and no secret, when the source cannot be reached', async () => {
    const reply = await release({ replicationId: UNREACHABLE_REPLICATION_ID, tables: [{ schema: 'public', name: 'kept' }] });
    expect(reply.ok).toBe(false);
    if (reply.ok) return;
    expect(reply.error.code).toBe(ErrorCode.Unavailable);
    expect(reply.error.messages.join(' ')).toContain('[public].[kept]');
    expect(JSON.stringify(reply)).not.toContain(SECRET);
    expect(logLines.join('\n')).not.toContain(SECRET);
  });
});
