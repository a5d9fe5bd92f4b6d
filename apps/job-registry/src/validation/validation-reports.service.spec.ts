import { JsonLogger } from '@svc/logging';
import type { ValidationReportRequest, ValidationResultReport } from '@svc/contracts';
import { ValidationReportsService } from './validation-reports.service';

const result = (repair: ValidationResultReport['repair']): ValidationReportRequest => ({
  workId: '5f0c7a4e-0000-4000-8000-0000000000w1',
  validationId: '5f0c7a4e-0000-4000-8000-0000000000v1',
  replicationId: '5f0c7a4e-0000-4000-8000-0000000000r1',
  table: { schema: 'dbo', name: 'Orders' },
  report: {
    kind: 'result',
    sourceVersion: '812',
    rowsCompared: 10,
    rowsEstimated: 10,
    missingKeys: 0,
    extraKeys: 0,
    differentKeys: 0,
    unsettledKeys: 0,
    differingKeys: [],
    note: null,
    wholeTableEqual: null,
    ...(repair !== undefined && { repair }),
  },
});

function service() {
  const calls: string[] = [];
  const subject = new ValidationReportsService(
    {
      recordProgress: async () => true,
      finish: async () => (calls.push('finish'), true),
      revalidateAfterReseed: async (_validationId, table) => void calls.push(`revalidate ${table} after its reseed`),
    },
    { listByReplication: async () => [] },
    { raise: async () => undefined, resolve: async () => undefined } as never,
    { reseedTable: async (_replicationId: string, table: string) => void calls.push(`reseed ${table}`) },
    new JsonLogger('job-registry', 'error', () => undefined),
  );
  return { subject, calls };
}

describe('ValidationReportsService', () => {
  it('marks a table repaired by a reseed for a validation after it before asking for the reseed', async () => {
    const { subject, calls } = service();
    expect((await subject.report(result({ keysApplied: 0, reseed: 'its source records a change only when the row itself is written' }))).ok).toBe(true);
    expect(calls).toEqual(['finish', 'revalidate [dbo].[Orders] after its reseed', 'reseed [dbo].[Orders]']);
  });

  it('marks nothing for a repair key by key, or a plain validation', async () => {
    const { subject, calls } = service();
    await subject.report(result({ keysApplied: 3, reseed: null }));
    await subject.report(result(undefined));
    expect(calls).toEqual(['finish', 'finish']);
  });
});
