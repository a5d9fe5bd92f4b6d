import { createHash } from 'node:crypto';
import { MAX_WORK_GROUP_MEMBERS, isWorkGroup, type BatchDescriptor } from '@svc/contracts';
import { RetryableWorkError, TerminalWorkError } from '@svc/messaging';
import { runClassified } from './classified-work';
import type { WorkSubject } from './failure-classifier';
import type { FailureReport } from './work-failure';

/**
 * A group's message stays under this many bytes of JSON: JetStream's default payload limit is 1 MiB, and a member
 * carries its table's definition (a wide table's is tens of KB). Members beyond it travel in another group.
 */
export const MAX_GROUP_MESSAGE_BYTES = 512 * 1024;

/**
 * Members cut into groups of at most MAX_WORK_GROUP_MEMBERS members and `maxBytes` of JSON each, in their order. A member
 * over the limit alone is a group of its own (it is sent as one table's message).
 */
export function groupsOf<T>(members: readonly T[], maxBytes = MAX_GROUP_MESSAGE_BYTES): T[][] {
  const groups: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const member of members) {
    const size = Buffer.byteLength(JSON.stringify(member));
    if (current.length > 0 && (current.length >= MAX_WORK_GROUP_MEMBERS || bytes + size > maxBytes)) {
      groups.push(current);
      current = [];
      bytes = 0;
    }
    current.push(member);
    bytes += size;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/**
 * The message id of a group a stage sends on: the same members (work, batch and epoch each) give the same id, so a
 * stage that sends it again after a crash is deduplicated by JetStream, and a later attempt of any member is not.
 */
export function groupMessageId(stage: 'extracted' | 'staged', members: readonly { workId: string; batch: Pick<BatchDescriptor, 'batchId' | 'epoch'> }[]): string {
  const digest = createHash('sha256');
  for (const { workId, batch } of members) digest.update(`${workId}\n${batch.batchId}\n${String(batch.epoch)}\n`);
  return `group/${stage}/${digest.digest('hex')}`;
}

/**
 * The members a group could not carry, each run as one table's work by `runAlone` (the consumer's own handler of one
 * table's message, which reports a terminal failure itself), one after the other, in the group's handler: a worker may
 * not publish on its own stage's input subject (bus roles), and a member sent back there would also lose its place.
 * A member that still fails, retryably, is reported so (`reportRetryable`: WorkFailed, retryable), and the registry
 * tries its table again on its own after a backoff; the others go on. A stop (WorkAbortedError) or anything
 * unclassified ends the group's handler, and the group is delivered again (every member's step is idempotent).
 */
export async function runEachAlone<T>(
  members: readonly T[],
  runAlone: (member: T) => Promise<void>,
  reportRetryable: (member: T, failure: RetryableWorkError) => Promise<void>,
): Promise<void> {
  for (const member of members) {
    try {
      await runAlone(member);
    } catch (error) {
      if (error instanceof RetryableWorkError) await reportRetryable(member, error);
      else if (!(error instanceof TerminalWorkError)) throw error;
    }
  }
}

/** The newest configuration version any member was read under: the group connects with it (or a newer one). */
export function newestConfigVersion(members: readonly { batch: { configVersion?: number } }[]): number | undefined {
  const versions = members.map((member) => member.batch.configVersion).filter((version): version is number => version !== undefined);
  return versions.length === 0 ? undefined : Math.max(...versions);
}

/** How many of a group's members' requests (S3 files finished, rows purged) run at once. */
export const GROUP_REQUESTS_AT_ONCE = 8;

/**
 * `work` for every item, at most `atOnce` at a time, answers in the items' order: a group's per-member requests to S3 or
 * NATS, which one after the other would cost a hundred round trips of a real S3's 20–50 ms each per group.
 */
export async function eachAtMost<T, R>(items: readonly T[], atOnce: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(atOnce, items.length)) }, () => worker()));
  return results;
}

/** One table's work of a stage's subject, and a group of them. */
type MemberOf<W> = Exclude<W, { group: unknown[] }>;
type GroupOf<W> = Extract<W, { group: unknown[] }>;

/** A stage's steps for one table's work and for a group's (runWorkOrGroup). */
export interface WorkOrGroupSteps<W extends { workId: string }> {
  endpoint: WorkSubject['endpoint'];
  /** `[schema].[table]` of one table's work, for the failure's wording. */
  tableOf: (member: MemberOf<W>) => string;
  /** One table's work, delivered alone. */
  alone: (member: MemberOf<W>) => Promise<void>;
  /** A member the group could not carry, run alone; `alone` when absent. */
  memberAlone?: (member: MemberOf<W>) => Promise<void>;
  /** The group's pass: the members it returns are run alone (runEachAlone). */
  group: (group: GroupOf<W>) => Promise<readonly MemberOf<W>[]>;
  /** Tells the registry a table's work failed (WorkFailed). */
  fail: (member: MemberOf<W>, failure: FailureReport) => Promise<void>;
}

/**
 * A stage consumer's handler: one table's work classified (a terminal failure reported by `fail`, a retryable one handed
 * to the worker's redelivery), or a group's pass followed by its leftover members each run alone the same way. The group
 * itself has nothing to report: its members each report their own outcome.
 */
export function runWorkOrGroup<W extends { workId: string }>(work: W, steps: WorkOrGroupSteps<W>): Promise<void> {
  const classified = (member: MemberOf<W>, run: (member: MemberOf<W>) => Promise<void>): Promise<void> =>
    runClassified(() => run(member), { endpoint: steps.endpoint, table: steps.tableOf(member) }, ({ reason, scope, detail }) =>
      steps.fail(member, { message: reason, retryable: false, scope, ...(detail !== undefined && { detail }) }),
    );
  if (!isWorkGroup(work)) return classified(work as MemberOf<W>, steps.alone);
  const group = work as GroupOf<W>;
  return runClassified(
    async () =>
      runEachAlone(
        await steps.group(group),
        (member) => classified(member, steps.memberAlone ?? steps.alone),
        (member, failure) => steps.fail(member, { message: failure.message, retryable: true, scope: 'table', ...(failure.detail !== undefined && { detail: failure.detail }) }),
      ),
    { endpoint: steps.endpoint },
    () => Promise.resolve(),
  );
}
