import { randomUUID } from 'node:crypto';
import { PipelineSubjects, Subjects, rpcOk, type BatchExtracted, type ExtractRequested, type TableRef, type WorkFailed } from '@svc/contracts';
import { readRowChunks, type NestReplyPacket, type NestRequestPacket } from '@svc/messaging';
import type { PipelineServiceHarness } from '@svc/system-testing';
import { createTempDatabase, sampleReplicationConfig, waitUntil, type TempDatabase } from '@svc/testing';
import { Client } from 'pg';
import { startExtractorHarness } from '../testing/extractor-harness';
import { GROUP_MEMBER_MAX_BYTES } from './extract.service';
import { seededFrom, writesVisible } from '../testing/source-reads';

const REPLICATION = '4e1f2a3b-5c6d-4e7f-8a9b-0c1d2e3f4a5b';
const table = (name: string): TableRef => ({ schema: 'public', name });
/** The epoch the registry (played by the spec) gives a member's new attempt. */
const NEW_ATTEMPT_EPOCH = 9;

/**
 * Small changes of several tables travel as one unit (issue 39, item 4): the extractor reads a group's members one after
 * the other and sends the one-batch members on to staging in one message; a member with a backlog over its batch limit
 * sends its chain alone, and a member that fails goes on alone under a new attempt, its failure its own.
 */
describe('extractor: a group of change cycles', () => {
  let sourceDb: TempDatabase;
  let stagingDb: TempDatabase;
  let source: Client;
  let harness: PipelineServiceHarness<typeof PipelineSubjects.batchExtracted>;
  const failures: WorkFailed[] = [];
  const attemptsAsked: string[] = [];

  function requestOf(name: string, kind: ExtractRequested['kind'], options: { batchLimit?: number; fromVersion?: string } = {}): ExtractRequested {
    return {
      workId: randomUUID(),
      replicationId: REPLICATION,
      table: table(name),
      kind,
      track: true,
      ...(options.fromVersion !== undefined && { fromVersion: options.fromVersion }),
      batchLimit: options.batchLimit ?? 1000,
      epoch: 1,
      requestedAt: new Date().toISOString(),
    };
  }

  async function csvOf(event: BatchExtracted): Promise<string[]> {
    const chunks: Buffer[] = [];
    for await (const chunk of readRowChunks(harness.connection, event.rowsSubject, event.chunkCount)) chunks.push(chunk);
    return Buffer.concat(chunks).toString('utf8').split('\n').filter((line) => line !== '').sort();
  }

  /** Seeds the table (tracking it) and returns the version its changes are read from. */
  const seeded = (name: string): Promise<string> => seededFrom(harness, requestOf(name, 'seed'));

  beforeAll(async () => {
    sourceDb = await createTempDatabase('svc_extract_group_src');
    stagingDb = await createTempDatabase('svc_extract_group_stg');
    source = new Client({ connectionString: sourceDb.url });
    await source.connect();
    for (const name of ['a', 'b', 'c', 'big', 'grown']) {
      await source.query(`create table ${name} (id integer primary key, v integer not null, note text)`);
      await source.query(`insert into ${name} select id, 0 from generate_series(1, 5) id`);
    }
    harness = await startExtractorHarness({
      testName: 'work-group-test',
      configs: new Map([[REPLICATION, sampleReplicationConfig({ source: { connectionString: sourceDb.url }, staging: { connectionString: stagingDb.url } })]]),
    });
    // The registry's part: a new attempt of a work gets a new epoch.
    harness.connection.subscribe(Subjects.registryWorkAttempt, {
      callback: (error, message) => {
        if (error) return;
        const packet = message.json<NestRequestPacket<{ workId: string }>>();
        attemptsAsked.push(packet.data.workId);
        const reply: NestReplyPacket = { id: packet.id, response: rpcOk({ epoch: NEW_ATTEMPT_EPOCH }), isDisposed: true };
        message.respond(JSON.stringify(reply));
      },
    });
    harness.connection.subscribe(PipelineSubjects.workFailed, { callback: (error, message) => void (error ?? failures.push(message.json<WorkFailed>())) });
  }, 60000);

  afterAll(async () => {
    await harness?.stop();
    await source?.end();
    await sourceDb?.drop();
    await stagingDb?.drop();
  });

  it('sends the one-batch members on together, a backlog\'s chain alone, and a failing member alone under a new attempt', async () => {
    const versions = new Map<string, string>();
    for (const name of ['a', 'b', 'c', 'big', 'grown']) versions.set(name, await seeded(name));
    // Over GROUP_MEMBER_MAX_BYTES of rows in one batch: it goes alone.
    await source.query(`insert into grown select id, 1, repeat('x', 200) from generate_series(100, ${String(100 + Math.ceil(GROUP_MEMBER_MAX_BYTES / 200))}) id`);
    await source.query('update a set v = 1 where id = 1');
    await source.query('update b set v = 2 where id <= 2');
    await source.query('delete from c where id = 5');
    let lastXid = '0';
    for (let id = 1; id <= 3; id += 1) {
      const written = await source.query<{ xid: string }>('update big set v = 7 where id = $1 returning pg_current_xact_id()::text as xid', [id]);
      lastXid = written.rows[0]?.xid ?? lastXid;
    }
    // A change read ends at the snapshot's xmin: while another spec's transaction older than these writes is open on the
    // shared server, the reads would find nothing yet (and nothing would travel).
    await writesVisible(source, lastXid);
    const groupsBefore = harness.groupMessages();

    const members = {
      a: requestOf('a', 'changes', { fromVersion: versions.get('a') }),
      b: requestOf('b', 'changes', { fromVersion: versions.get('b') }),
      c: requestOf('c', 'changes', { fromVersion: versions.get('c') }),
      // One transaction per batch: a chain of three.
      big: requestOf('big', 'changes', { fromVersion: versions.get('big'), batchLimit: 1 }),
      grown: requestOf('grown', 'changes', { fromVersion: versions.get('grown') }),
      // Not a version: the read fails, as a source that cannot be read would.
      broken: requestOf('a', 'changes', { fromVersion: 'not-a-version' }),
    };
    const groupId = randomUUID();
    await harness.publisher.publish(PipelineSubjects.extractRequested, { workId: groupId, group: Object.values(members) }, groupId);

    await waitUntil(async () => harness.groupMessages() > groupsBefore, 30000, 'the group\'s batches');
    await waitUntil(async () => harness.resultsOf(members.grown.workId).length > 0, 30000, 'the grown member, alone');
    await waitUntil(async () => harness.resultsOf(members.big.workId).some((event) => event.batch.body.kind === 'changes' && event.batch.body.final !== false), 30000, 'the chain of big');
    await waitUntil(async () => failures.some((failure) => failure.workId === members.broken.workId), 60000, 'the broken member\'s own failure');

    expect(harness.groupMessages()).toBe(groupsBefore + 1);
    expect(await csvOf(harness.resultsOf(members.a.workId)[0])).toEqual(['U,1,1,']);
    expect(await csvOf(harness.resultsOf(members.b.workId)[0])).toEqual(['U,1,2,', 'U,2,2,']);
    expect(await csvOf(harness.resultsOf(members.c.workId)[0])).toEqual(['D,5,,']);
    expect(harness.resultsOf(members.big.workId).length).toBeGreaterThan(1);
    expect([members.a, members.b, members.c].every((member) => harness.groupedWorkIds.has(member.workId))).toBe(true);
    expect(harness.resultsOf(members.grown.workId)).toHaveLength(1);
    expect(harness.groupedWorkIds.has(members.grown.workId)).toBe(false);
    // The failing member went on alone, as a new attempt of its own work (then retried as any work is): its failure is
    // reported under its attempts; no other member was asked about.
    expect([...new Set(attemptsAsked)]).toEqual([members.broken.workId]);
    expect(failures.filter((failure) => failure.workId === members.broken.workId).map((failure) => failure.epoch)).toContain(NEW_ATTEMPT_EPOCH);
    expect(harness.resultsOf(members.broken.workId)).toEqual([]);
  }, 120000);
});
