import { PipelineSubjects, type ExtractRequested } from '@svc/contracts';
import type { PipelineServiceHarness } from '@svc/system-testing';
import { waitUntil } from '@svc/testing';
import type { Client } from 'pg';

/**
 * Each change read ends at the snapshot's xmin: waits until no transaction older than the write `xid` is open on the
 * (shared) server, so that a read sees it.
 */
export async function writesVisible(source: Client, xid: string): Promise<void> {
  const olderOpen = async () =>
    (await source.query<{ n: number }>('select count(*)::int as n from pg_snapshot_xip(pg_current_snapshot()) open where open <= $1::xid8', [xid])).rows[0]?.n;
  await waitUntil(async () => (await olderOpen()) === 0, 60000, 'older transactions on the server to end');
}

/** Publishes a seed `request` to the extractor under test and returns the version its changes are read from. */
export async function seededFrom(harness: PipelineServiceHarness<typeof PipelineSubjects.batchExtracted>, request: ExtractRequested): Promise<string> {
  await harness.publisher.publish(PipelineSubjects.extractRequested, request, request.workId);
  await waitUntil(async () => harness.resultsOf(request.workId).length > 0, 30000, `the seed of ${request.table.name}`);
  const [part] = harness.resultsOf(request.workId);
  return part?.batch.body.kind === 'seed' ? part.batch.body.startVersion : '';
}
