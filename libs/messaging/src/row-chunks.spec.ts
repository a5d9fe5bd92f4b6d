import type { NatsConnection } from 'nats';
import { publishRowChunks, purgeRows, readRowChunks, rowsSubjectOf } from './row-chunks';

// Subject checks happen before any I/O, so a connection that must never be used is enough here.
const unusedConnection = new Proxy({} as NatsConnection, {
  get: () => {
    throw new Error('the connection must not be used');
  },
});

async function* nothing(): AsyncGenerator<Buffer> {}

describe('rowsSubjectOf', () => {
  it('is one hex token under the rows prefix, the same for the same batch of the same work', () => {
    const subject = rowsSubjectOf('replication-1/[sales].[order lines]/changes/100-120/0', 'work-1');
    expect(subject).toMatch(/^svc\.pipeline\.v1\.rows\.[0-9a-f]{64}$/);
    expect(rowsSubjectOf('replication-1/[sales].[order lines]/changes/100-120/0', 'work-1')).toBe(subject);
  });

  it('differs between batches, and between two works that read the same batch id (the next one must not purge the rows of the last)', () => {
    expect(rowsSubjectOf('batch-a', 'work-1')).not.toBe(rowsSubjectOf('batch-b', 'work-1'));
    expect(rowsSubjectOf('batch-a', 'work-1')).not.toBe(rowsSubjectOf('batch-a', 'work-2'));
  });
});

describe('rows subject checks', () => {
  it.each(['svc.pipeline.v1.rows.>', 'svc.pipeline.v1.rows.*', 'svc.pipeline.v1.rows', 'svc.pipeline.v1.rows.a.b', 'svc.pipeline.v1.batch.staged'])(
    'refuses %s, which could touch other batches or no batch',
    async (subject) => {
      await expect(purgeRows(unusedConnection, subject)).rejects.toThrow('is not a rows subject');
      await expect(publishRowChunks(unusedConnection, subject, nothing())).rejects.toThrow('is not a rows subject');
      await expect(readRowChunks(unusedConnection, subject, 1).next()).rejects.toThrow('is not a rows subject');
    },
  );

  it('refuses a negative chunk count', async () => {
    await expect(readRowChunks(unusedConnection, rowsSubjectOf('b', 'w'), -1).next()).rejects.toThrow('chunkCount must be an integer >= 0');
  });
});
