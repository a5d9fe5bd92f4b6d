import { ErrorCode, type TableDefinition } from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
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
  let lines: string[];

  beforeEach(() => {
    engine = new FakeEngine();
    lines = [];
    const logger = new JsonLogger('extractor', 'info', (line) => lines.push(line));
    service = new DiscoverService(new EngineRegistry(engine.table()), staticConfigs({ [REPLICATION_ID]: sampleReplicationConfig() }), logger);
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
    expect(JSON.stringify(reply)).not.toContain('password authentication failed');
  });

  it('logs what the source said and where, redacted, next to the reason it answers', async () => {
    engine.source.faults.failNext('discoverTables', Object.assign(new Error('password authentication failed for postgres://app:hunter2@db/x'), { code: '28P01' }));

    const reply = await service.discover({ replicationId: REPLICATION_ID });

    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line['msg'] === 'table discovery failed');
    expect(logged).toMatchObject({
      level: 'warn',
      replicationId: REPLICATION_ID,
      reason: reply.ok ? undefined : reply.error.messages[0],
      detail: 'password authentication failed for postgres://app:[redacted]@db/x',
      errorName: 'Error',
      code: '28P01',
      where: expect.stringContaining('discover.service.spec.ts') as unknown,
    });
    expect(lines.join('\n')).not.toContain('hunter2');
  });
});
