import { RetryableWorkError, TerminalWorkError } from '@svc/messaging';
import { runClassified } from './classified-work';
import type { TerminalFailure } from './classified-work';
import { ReplicationGoneError } from './runtime-config.client';

const withCode = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('runClassified', () => {
  let reports: TerminalFailure[];
  const onTerminal = async (failure: TerminalFailure): Promise<void> => void reports.push(failure);
  const subject = { endpoint: 'Source', table: '[public].[orders]' } as const;

  beforeEach(() => {
    reports = [];
  });

  it('resolves without a report when the work succeeds', async () => {
    await expect(runClassified(async () => undefined, subject, onTerminal)).resolves.toBeUndefined();
    expect(reports).toEqual([]);
  });

  it('asks for a retry of a transient failure without reporting it', async () => {
    const run = runClassified(async () => Promise.reject(withCode('40P01', 'deadlock detected')), subject, onTerminal);
    await expect(run).rejects.toBeInstanceOf(RetryableWorkError);
    await expect(run).rejects.toThrow('Source: the server is busy or did not answer in time');
    await expect(run).rejects.toMatchObject({ detail: 'deadlock detected' });
    expect(reports).toEqual([]);
  });

  it('reports a table-scoped terminal failure before giving the work up', async () => {
    const run = runClassified(async () => Promise.reject(withCode('42P01', 'relation "public.orders" does not exist')), subject, onTerminal);
    await expect(run).rejects.toBeInstanceOf(TerminalWorkError);
    expect(reports).toEqual([
      { reason: 'Source: [public].[orders] (or its schema or one of its columns) does not exist', scope: 'table', detail: 'relation "public.orders" does not exist' },
    ]);
  });

  it('reports a replication-scoped terminal failure with its scope', async () => {
    const run = runClassified(async () => Promise.reject(withCode('28P01', 'password authentication failed for user "app"')), subject, onTerminal);
    await expect(run).rejects.toBeInstanceOf(TerminalWorkError);
    expect(reports).toEqual([{ reason: 'Source: authentication failed', scope: 'replication', detail: 'password authentication failed for user "app"' }]);
  });

  it('drops work of a deleted replication silently', async () => {
    await expect(runClassified(async () => Promise.reject(new ReplicationGoneError('r-1')), subject, onTerminal)).resolves.toBeUndefined();
    expect(reports).toEqual([]);
  });
});
