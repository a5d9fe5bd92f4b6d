import { ErrorCode, type TableDefinition } from '@svc/contracts';
import { EngineRegistry } from '@svc/pipeline-runtime';
import { FakeEngine, staticConfigs } from '@svc/pipeline-runtime/testing';
import { SAMPLE_PEOPLE_TABLE, sampleReplicationConfig } from '@svc/testing';
import { DiscoverService } from './discover.service';

const REPLICATION_ID = '3e4f5a6b-7c8d-4e9f-8a0b-1c2d3e4f5a6b';
const ORDERS: TableDefinition = { ...SAMPLE_PEOPLE_TABLE, table: { schema: 'sales', name: 'orders' } };

/** Table discovery for the registry, against a fake source. */
describe('DiscoverService with a fake engine', () => {
  let engine: FakeEngine;
  let service: DiscoverService;

  beforeEach(() => {
    engine = new FakeEngine();
    service = new DiscoverService(new EngineRegistry(engine.table()), staticConfigs({ [REPLICATION_ID]: sampleReplicationConfig() }));
  });

  it('answers with the tables the source describes', async () => {
    engine.source.addTable(SAMPLE_PEOPLE_TABLE);
    engine.source.addTable(ORDERS);

    expect(await service.discover({ replicationId: REPLICATION_ID })).toEqual({ ok: true, value: { tables: [SAMPLE_PEOPLE_TABLE, ORDERS] } });
  });

  it('refuses a request without a replication id', async () => {
    expect(await service.discover({})).toMatchObject({ ok: false, error: { code: ErrorCode.ValidationFailed } });
  });

  it('answers Unavailable with the engine\'s reason, never a password, when the source fails', async () => {
    engine.source.faults.failNext('discoverTables', Object.assign(new Error('password authentication failed for postgres://app:hunter2@db/x'), { code: '28P01' }));

    const reply = await service.discover({ replicationId: REPLICATION_ID });

    expect(reply).toMatchObject({ ok: false, error: { code: ErrorCode.Unavailable } });
    expect(JSON.stringify(reply)).not.toContain('hunter2');
  });
});
