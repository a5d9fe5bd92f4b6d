import { Portable, type TableDefinition, type ValidateRequested, type ValidationReportBody } from '@svc/contracts';
import { ChecksumsUnsupportedError, type ChecksumReader, type KeyDigest, type SourceChecksums } from '@svc/engines';
import type { JsonLogger } from '@svc/logging';
import type { NatsRequester } from '@svc/messaging';
import type { EngineRegistry, RuntimeConfigClient } from '@svc/pipeline-runtime';
import { RESEED_WITHOUT_KEY_MARKS, ValidateService } from './validate.service';

const items = {
  table: { schema: 'dbo', name: 'items' },
  columns: [{ name: 'id', sourceType: 'int', portableType: Portable.integer(), nullable: false }],
  primaryKey: ['id'],
} as TableDefinition;

/** One table of one row, key 1, whose digest is `digest` on this side. */
function oneRow(digest: bigint): ChecksumReader {
  const row: KeyDigest = { bucket: 0, keyHash: 'c4ca4238a0b923820dcc509a6f75849b', key: ['1'], digest };
  return {
    integerKeyBounds: async () => ({ min: 1n, max: 1n }),
    bucketSums: async () => [{ bucket: 0, rows: 1, sum: digest }],
    segmentSums: async () => [{ bucket: 0, rows: 1, sum: digest }],
    keyDigestsInSegments: async () => [row],
    digestsOfKeys: async () => [row],
    close: async () => undefined,
  };
}

interface LoggedWarning {
  message: string;
  fields: Record<string, unknown>;
}

function service(
  checksums: SourceChecksums,
  warehouseSnapshot: () => Promise<ChecksumReader> = async () => oneRow(2n),
): { validate(request: ValidateRequested): Promise<void>; reports: ValidationReportBody[]; warnings: LoggedWarning[] } {
  const reports: ValidationReportBody[] = [];
  const warnings: LoggedWarning[] = [];
  const source = { checksums: () => checksums, describeTable: async () => items };
  const engines = { source: () => source, warehouse: () => ({ checksums: () => ({ openSnapshot: warehouseSnapshot }) }) } as unknown as EngineRegistry;
  const configs = { configOf: async () => ({ warehouse: { databaseSchema: 'dw', scdType: 'Type1' }, addUpdateTimestamp: false, schemaReplication: true }) } as unknown as RuntimeConfigClient;
  const requester = {
    request: async (_subject: string, message: { report: ValidationReportBody }) => {
      reports.push(message.report);
      return { ok: true, value: { watermark: '100', current: true } };
    },
  } as unknown as NatsRequester;
  const logger = { warn: (message: string, fields: Record<string, unknown>) => void warnings.push({ message, fields }), info: () => undefined } as unknown as JsonLogger;
  const validator = new ValidateService(engines, configs, requester, logger, new AbortController(), { validationMaxRowsPerSecond: 0 });
  return { validate: (request) => validator.validate(request), reports, warnings };
}

const request = (repair: boolean): ValidateRequested => ({
  workId: 'w1',
  validationId: 'v1',
  replicationId: 'r1',
  table: items.table,
  repair,
  requestedAt: '2024-01-02T00:00:00.000Z',
});

const sourceSide = (more: Partial<SourceChecksums> = {}): SourceChecksums => ({
  withSnapshot: async (work) => work({ ...oneRow(1n), version: '100', rowsEstimated: 1, keysChangedSince: async () => [] }),
  compareVersions: (left, right) => Number(BigInt(left) - BigInt(right)),
  ...more,
});

describe('a repair on a source that cannot mark keys changed (SQL Server Change Tracking)', () => {
  it('reseeds the table, saying why, and never asks the source to write', async () => {
    const validator = service(sourceSide());
    await validator.validate(request(true));
    const result = validator.reports.find((report) => report.kind === 'result');
    expect(result).toMatchObject({ kind: 'result', differentKeys: 1, repair: { keysApplied: 0, reseed: RESEED_WITHOUT_KEY_MARKS } });
    expect(RESEED_WITHOUT_KEY_MARKS).toMatch(/records a change only when the row itself is written.*reseeded/);
  });

  it('still repairs key by key where the source can mark them', async () => {
    const marked: string[][] = [];
    const validator = service(
      sourceSide({
        markChanged: async (keys) => {
          marked.push(keys.map((key) => key.keyHash));
          return '100';
        },
      }),
    );
    await validator.validate(request(true));
    expect(marked).toEqual([['c4ca4238a0b923820dcc509a6f75849b']]);
    expect(validator.reports.find((report) => report.kind === 'result')).toMatchObject({ repair: { keysApplied: 1, reseed: null } });
  });
});

describe('a source server that cannot compute the checksums', () => {
  it('makes the table Skipped with the server\'s reason, not Failed', async () => {
    const validator = service(sourceSide({ withSnapshot: () => Promise.reject(new ChecksumsUnsupportedError('validation needs SQL Server 2019 or later')) }));
    await validator.validate(request(false));
    expect(validator.reports.at(-1)).toEqual({ kind: 'failed', reason: 'validation needs SQL Server 2019 or later', unsupported: true });
  });
});

/** A driver's error thrown from a named function, so that its frame comes first in the stack. */
function openChecksumSession(): Error {
  return new Error('timeout exceeded when trying to connect to postgres://app:hunter2@db.internal/sales');
}

describe('a comparison that fails', () => {
  it('reports the classified reason only, and logs what the driver said and where, redacted', async () => {
    const validator = service(sourceSide({ withSnapshot: () => Promise.reject(openChecksumSession()) }));
    await validator.validate(request(false));

    const report = validator.reports.at(-1);
    expect(report).toEqual({ kind: 'failed', reason: expect.stringMatching(/^Source: .*internal error/) as unknown, unsupported: false });
    const [warning] = validator.warnings;
    expect(warning).toMatchObject({
      message: 'table validation failed',
      fields: {
        replicationId: 'r1',
        validationId: 'v1',
        table: '[dbo].[items]',
        reason: (report as { reason: string }).reason,
        detail: 'timeout exceeded when trying to connect to postgres://app:[redacted]@db.internal/sales',
        errorName: 'Error',
        where: expect.stringMatching(/^openChecksumSession \(.*validate\.service\.spec\.ts:\d+:\d+\) ← /) as unknown,
      },
    });
    expect(JSON.stringify(validator.warnings)).not.toContain('hunter2');
  });

  it('logs the warehouse\'s own error, not its wrapper, when the warehouse side fails', async () => {
    const failure = Object.assign(new Error('could not connect to server'), { code: 'ECONNRESET' });
    const validator = service(sourceSide(), () => Promise.reject(failure));
    await validator.validate(request(false));

    expect(validator.reports.at(-1)).toMatchObject({ kind: 'failed', reason: expect.stringMatching(/^Warehouse: /) as unknown });
    expect(validator.warnings[0]?.fields).toMatchObject({
      reason: expect.stringMatching(/^Warehouse: /) as unknown,
      detail: 'could not connect to server',
      errorName: 'Error',
      code: 'ECONNRESET',
      wrappedIn: 'WarehouseSideError',
      where: expect.stringContaining('validate.service.spec.ts') as unknown,
    });
  });
});
