import { ErrorCode } from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import { InMemoryAccessKeyStore } from '../testing/in-memory-stores';
import { AccessKeysService } from './access-keys.service';
import { CredentialGenerator } from './credential-generator';

class SequenceGenerator extends CredentialGenerator {
  constructor(private readonly ids: string[]) {
    super();
  }

  override accessKeyId(): string {
    return this.ids.shift() ?? super.accessKeyId();
  }
}

describe('AccessKeysService', () => {
  let keys: InMemoryAccessKeyStore;
  let logLines: string[];

  function serviceWith(generator: CredentialGenerator = new CredentialGenerator(), bootstrap: { accessKeyId: string; secretKey: string } | null = null) {
    logLines = [];
    const logger = new JsonLogger('job-registry', 'debug', (line) => logLines.push(line));
    return new AccessKeysService(keys, generator, { bootstrapAccessKey: bootstrap }, logger);
  }

  beforeEach(() => {
    keys = new InMemoryAccessKeyStore();
  });

  it('upserts the bootstrap key at start with every operation allowed', async () => {
    await serviceWith(undefined, { accessKeyId: 'SVCADMIN', secretKey: 'admin-secret-1' }).onModuleInit();
    expect(await keys.find('SVCADMIN')).toEqual({ secretKey: 'admin-secret-1', allowedOperations: ['*'], replicationScope: 'All' });
    expect(logLines.join('\n')).not.toContain('admin-secret-1');
  });

  it('creates a key, stores it and shows its secret once', async () => {
    const reply = await serviceWith().createAccessKey({ allowedOperations: ['DescribeWarehouseReplication', 'ListWarehouseReplications'], description: 'dashboards' });
    expect(reply.ok).toBe(true);
    if (!reply.ok) return;
    expect(reply.value.accessKeyId).toMatch(/^SVC[A-Z0-9]{17}$/);
    expect(reply.value.secretKey).toMatch(/^[A-Za-z0-9_-]{40}$/);
    expect(await keys.find(reply.value.accessKeyId)).toEqual({
      secretKey: reply.value.secretKey,
      allowedOperations: ['DescribeWarehouseReplication', 'ListWarehouseReplications'],
      replicationScope: 'Own',
    });
    expect(reply.value.replicationScope).toBe('Own');
    expect(logLines.join('\n')).not.toContain(reply.value.secretKey);
  });

  it('creates a key for every replication only when asked', async () => {
    const reply = await serviceWith().createAccessKey({ allowedOperations: ['*'], replicationScope: 'All' });
    expect(reply).toMatchObject({ ok: true, value: { replicationScope: 'All' } });
    expect(await serviceWith().createAccessKey({ allowedOperations: ['*'], replicationScope: 'Everything' })).toMatchObject({ ok: false, error: { code: 'ValidationFailed' } });
  });

  it('grants the error-detail permission like an operation (issue 19), and the registry reads it back', async () => {
    const reply = await serviceWith().createAccessKey({ allowedOperations: ['DescribeWarehouseReplication', 'DescribeReplicationErrorDetails'] });
    expect(reply).toMatchObject({ ok: true, value: { allowedOperations: ['DescribeWarehouseReplication', 'DescribeReplicationErrorDetails'] } });
    if (!reply.ok) return;
    const plain = await serviceWith().createAccessKey({ allowedOperations: ['DescribeWarehouseReplication'] });
    if (!plain.ok) throw new Error('expected a key');
    expect(await keys.mayReadErrorDetails(reply.value.accessKeyId)).toBe(true);
    expect(await keys.mayReadErrorDetails(plain.value.accessKeyId)).toBe(false);
  });

  it('draws a new id when the first one is taken', async () => {
    await keys.upsertBootstrap('SVCTAKEN', 'x');
    const reply = await serviceWith(new SequenceGenerator(['SVCTAKEN', 'SVCFREE'])).createAccessKey({ allowedOperations: ['*'] });
    expect(reply).toMatchObject({ ok: true, value: { accessKeyId: 'SVCFREE', allowedOperations: ['*'] } });
  });

  it('refuses malformed create requests', async () => {
    expect(await serviceWith().createAccessKey({ allowedOperations: ['Nope'] })).toEqual({
      ok: false,
      error: { code: ErrorCode.ValidationFailed, messages: ["allowedOperations[0]: must be '*', an operation name or DescribeReplicationErrorDetails"] },
    });
    expect(keys.keys.size).toBe(0);
  });
});
