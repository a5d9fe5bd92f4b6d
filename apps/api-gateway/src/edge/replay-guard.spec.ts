import type { VerifiedHeaders } from '@svc/signing';
import type { GatewayConfig } from '../config/gateway-config';
import { ApiError } from '../api/api-error';
import { REPLAYED_MESSAGE, ReplayGuard } from './replay-guard';

const SIGNED_AT = new Date(Date.UTC(2026, 10, 23, 10, 15, 0));
const SKEW_MS = 15 * 60_000;

function signature(hex: string): VerifiedHeaders {
  return {
    authorization: { accessKeyId: 'K', scope: { date: '20261123', region: 'us-east-1', service: 'replication' }, signedHeaders: ['host'], signature: hex },
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

describe('ReplayGuard', () => {
  const guard = () => new ReplayGuard({ maxClockSkewMs: SKEW_MS } as GatewayConfig);

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
});
