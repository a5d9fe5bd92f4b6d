import { EnvReader } from '@svc/config';
import { ReplayRecordsUnavailableError, type SharedReplayRecords } from '@svc/messaging';
import type { VerifiedHeaders } from '@svc/signing';
import type { GatewayConfig } from '../config/gateway-config';
import { ApiError } from '../api/api-error';
import { REPLAY_CACHE_CAPACITY, readKeyLimits } from './key-limits';
import { REPLAYED_MESSAGE, REPLAY_CHECK_UNAVAILABLE_MESSAGE, ReplayGuard } from './replay-guard';

const SIGNED_AT = new Date(Date.UTC(2026, 10, 23, 10, 15, 0));
const SKEW_MS = 15 * 60_000;

function signature(hex: string, accessKeyId = 'K'): VerifiedHeaders {
  return {
    authorization: { accessKeyId, scope: { date: '20261123', region: 'us-east-1', service: 'replication' }, signedHeaders: ['host'], signature: hex },
    signingDate: '20261123T101500Z',
    signedAt: SIGNED_AT,
  };
}

function refusal(action: () => void): ApiError | null {
  try {
    action();
    return null;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

/** The shared records' logic (first claim wins) in memory; tools/e2e/src/edge.integration-spec.ts runs them on NATS. */
class RecordsOfOneProcess implements Pick<SharedReplayRecords, 'claim'> {
  private readonly claimed = new Set<string>();
  unavailable = false;

  async claim(accessKeyId: string, signature: string): Promise<'first' | 'replayed'> {
    if (this.unavailable) throw new ReplayRecordsUnavailableError('NATS does not answer');
    const key = `${accessKeyId}/${signature}`;
    if (this.claimed.has(key)) return 'replayed';
    this.claimed.add(key);
    return 'first';
  }
}

describe('ReplayGuard', () => {
  const guard = (env: Record<string, string> = {}, shared: Pick<SharedReplayRecords, 'claim'> = new RecordsOfOneProcess()) =>
    new ReplayGuard({ maxClockSkewMs: SKEW_MS, keyLimits: readKeyLimits(new EnvReader(env)) } as GatewayConfig, shared);

  it.each([
    'CreateWarehouseReplication',
    'AlterWarehouseReplication',
    'DeleteWarehouseReplication',
    'StartReplication',
    'StopReplicationService',
    'AlterConfiguration',
    'StartReplicationValidation',
    'RepairReplication',
  ] as const)(
    'accepts a signed %s once and refuses its signature again with 403',
    (operation) => {
      const replays = guard();
      expect(refusal(() => replays.admit(operation, signature('a'.repeat(64)), SIGNED_AT))).toBeNull();
      expect(refusal(() => replays.admit(operation, signature('a'.repeat(64)), new Date(SIGNED_AT.getTime() + 1000)))).toEqual(new ApiError(403, [REPLAYED_MESSAGE]));
      expect(refusal(() => replays.admit(operation, signature('b'.repeat(64)), SIGNED_AT))).toBeNull();
    },
  );

  it.each(['DescribeWarehouseReplication', 'ListWarehouseReplications', 'GetReplicationMetrics', 'DescribeReplicationValidation'] as const)('lets a read-only %s be sent again', (operation) => {
    const replays = guard();
    for (let time = 0; time < 3; time += 1) expect(refusal(() => replays.admit(operation, signature('c'.repeat(64)), SIGNED_AT))).toBeNull();
  });

  it('remembers a signature until its date leaves the skew window', () => {
    const replays = guard();
    replays.admit('DeleteWarehouseReplication', signature('d'.repeat(64)), SIGNED_AT);
    const stillValid = new Date(SIGNED_AT.getTime() + SKEW_MS);
    expect(refusal(() => replays.admit('DeleteWarehouseReplication', signature('d'.repeat(64)), stillValid))?.status).toBe(403);
  });

  it("gives each access key its own share (issue 36): a key that filled its share is refused with 429, another key is not", () => {
    const replays = guard();
    let refused: ApiError | null = null;
    let sent = 0;
    // Today's whole cache holds 100,000: one key sending as many calls as that must meet its own limit first.
    while (refused === null && sent <= 100_000) {
      refused = refusal(() => replays.admit('DeleteWarehouseReplication', signature(`flood-${sent}`, 'SVCFLOODER'), SIGNED_AT));
      sent += 1;
    }
    expect(refused?.status).toBe(429);
    expect(Number(refused?.headers['Retry-After'])).toBeGreaterThan(0);
    expect(refusal(() => replays.admit('CreateWarehouseReplication', signature('e'.repeat(64), 'SVCBYSTANDER'), SIGNED_AT))).toBeNull();
    expect(refusal(() => replays.admit('CreateWarehouseReplication', signature('e'.repeat(64), 'SVCBYSTANDER'), SIGNED_AT))?.status).toBe(403);
  });

  it('answers 503 when the keys together fill the whole cache, which no key alone can', () => {
    const perKey = 1000;
    const replays = guard({ REPLAY_ENTRIES_PER_KEY: String(perKey) });
    for (let key = 0; key < REPLAY_CACHE_CAPACITY / perKey; key += 1) {
      for (let call = 0; call < perKey; call += 1) replays.admit('StartReplication', signature(`${key}-${call}`, `SVCKEY${key}`), SIGNED_AT);
    }
    const refused = refusal(() => replays.admit('StartReplication', signature('one-more', 'SVCNEWCOMER'), SIGNED_AT));
    expect({ status: refused?.status, retryAfter: refused?.headers['Retry-After'] }).toEqual({ status: 503, retryAfter: '60' });
  });

  describe('across replicas (confirmFirst, through the shared records)', () => {
    it('refuses a signature another replica received first, and lets reads through unrecorded', async () => {
      const shared = new RecordsOfOneProcess();
      const [first, second] = [guard({}, shared), guard({}, shared)];
      first.admit('AlterWarehouseReplication', signature('f'.repeat(64)), SIGNED_AT);
      await first.confirmFirst('AlterWarehouseReplication', signature('f'.repeat(64)));
      // The second replica's own cache never saw it: only the shared records know.
      second.admit('AlterWarehouseReplication', signature('f'.repeat(64)), SIGNED_AT);
      await expect(second.confirmFirst('AlterWarehouseReplication', signature('f'.repeat(64)))).rejects.toEqual(new ApiError(403, [REPLAYED_MESSAGE]));
      await second.confirmFirst('DescribeWarehouseReplication', signature('f'.repeat(64)));
      await second.confirmFirst('DescribeWarehouseReplication', signature('f'.repeat(64)));
    });

    it('refuses a call that changes state with 503 when the shared records cannot be asked, rather than let it through unchecked', async () => {
      const shared = new RecordsOfOneProcess();
      shared.unavailable = true;
      await expect(guard({}, shared).confirmFirst('DeleteWarehouseReplication', signature('9'.repeat(64)))).rejects.toEqual(
        new ApiError(503, [REPLAY_CHECK_UNAVAILABLE_MESSAGE], { 'Retry-After': '5' }),
      );
      await guard({}, shared).confirmFirst('ListWarehouseReplications', signature('9'.repeat(64)));
    });
  });
});
