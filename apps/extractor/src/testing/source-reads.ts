import { PipelineSubjects, type ExtractRequested } from '@svc/contracts';
import type { PipelineServiceHarness } from '@svc/system-testing';
import { waitUntil } from '@svc/testing';
import type { Client } from 'pg';

/**
 * Each change read ends at the snapshot's xmin: waits until no transaction older than the committed write `xid` is
 * open on the (shared) server, so that a read sees it.
 */
export async function writesVisible(source: Client, xid: string): Promise<void> {
  await waitForReadHorizon(source, xid, '>');
}

/**
 * Waits until the server's read horizon (its snapshot's xmin) is past (`>`) or at (`>=`, the write still open) `xid`.
 * The xmin, not the in-progress list: an xid handed out but newer than the snapshot's xmax is missing from that list
 * while its transaction still holds the horizon back.
 */
export async function waitForReadHorizon(source: Client, xid: string, comparison: '>' | '>='): Promise<void> {
  const passed = async () =>
    (await source.query<{ passed: boolean }>(`select pg_snapshot_xmin(pg_current_snapshot()) ${comparison} $1::xid8 as passed`, [xid])).rows[0]?.passed === true;
  await waitUntil(passed, 60000, 'older transactions on the server to end');
}

/** Publishes a seed `request` to the extractor under test and returns the version its changes are read from. */
export async function seededFrom(harness: PipelineServiceHarness<typeof PipelineSubjects.batchExtracted>, request: ExtractRequested): Promise<string> {
  await harness.publisher.publish(PipelineSubjects.extractRequested, request, request.workId);
  await waitUntil(async () => harness.resultsOf(request.workId).length > 0, 30000, `the seed of ${request.table.name}`);
  const [part] = harness.resultsOf(request.workId);
  return part?.batch.body.kind === 'seed' ? part.batch.body.startVersion : '';
}
