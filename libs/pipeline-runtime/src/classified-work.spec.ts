import { RetryableWorkError, TerminalWorkError } from '@svc/messaging';
import { runClassified } from './classified-work';
import type { FailureScope } from './failure-classifier';
import { ReplicationGoneError } from './runtime-config.client';

const withCode = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('runClassified', () => {
  let reports: { reason: string; scope: FailureScope }[];
  const onTerminal = async (reason: string, scope: FailureScope): Promise<void> => void reports.push({ reason, scope });

  beforeEach(() => {
    reports = [];
  });

  it('resolves without a report when the work succeeds', async () => {
    await expect(runClassified(async () => undefined, onTerminal)).resolves.toBeUndefined();
    expect(reports).toEqual([]);
  });

  it('asks for a retry of a transient failure without reporting it', async () => {
    const run = runClassified(async () => Promise.reject(withCode('40P01', 'deadlock detected')), onTerminal);
    await expect(run).rejects.toBeInstanceOf(RetryableWorkError);
    await expect(run).rejects.toThrow('deadlock detected');
    expect(reports).toEqual([]);
  });

  it('reports a table-scoped terminal failure before giving the work up', async () => {
    const run = runClassified(async () => Promise.reject(withCode('42P01', 'relation "public.orders" does not exist')), onTerminal);
    await expect(run).rejects.toBeInstanceOf(TerminalWorkError);
    expect(reports).toEqual([{ reason: 'relation "public.orders" does not exist', scope: 'table' }]);
  });

  it('reports a replication-scoped terminal failure with its scope', async () => {
    const run = runClassified(async () => Promise.reject(withCode('28P01', 'password authentication failed for user "app"')), onTerminal);
    await expect(run).rejects.toBeInstanceOf(TerminalWorkError);
    expect(reports).toEqual([{ reason: 'password authentication failed for user "app"', scope: 'replication' }]);
  });

  it('drops work of a deleted replication silently', async () => {
    await expect(runClassified(async () => Promise.reject(new ReplicationGoneError('r-1')), onTerminal)).resolves.toBeUndefined();
    expect(reports).toEqual([]);
  });
});
