import { PipelineSubjects, type PipelinePayloadOf, type PipelineSubject, type WorkProgress } from '@svc/contracts';
import type { PipelineWorkerOptions } from '@svc/messaging';

/** How often a worker tells the registry that it is still handling a unit of work. */
export const WORK_HEARTBEAT_MS = 10000;

/**
 * The heartbeats of a message a worker handles: one, of its unit of work; one per member of a group's message; none
 * for subjects that are no stage of a unit of work.
 */
export function workProgressOf<S extends PipelineSubject>(subject: S, payload: PipelinePayloadOf<S>, at: Date, deliveryCount = 1): WorkProgress[] {
  const message: PipelinePayloadOf<PipelineSubject> = payload;
  const members: PipelinePayloadOf<PipelineSubject>[] = 'group' in message ? message.group : [message];
  return members.flatMap((member) => {
    const progress = memberProgressOf(subject, member, at, deliveryCount);
    return progress === null ? [] : [progress];
  });
}

/**
 * A batch names the epoch of the attempt that read it. A work request delivered again runs under a new epoch the
 * extractor asks for (WorkAttemptRequest), which the message does not carry: it beats without one, as before (a chunk
 * keeps its seed's epoch, so its own is right on every delivery).
 */
function memberProgressOf(subject: PipelineSubject, message: PipelinePayloadOf<PipelineSubject>, at: Date, deliveryCount: number): WorkProgress | null {
  if (subject === PipelineSubjects.extractRequested && 'kind' in message && 'requestedAt' in message) {
    const epochKnown = deliveryCount <= 1 || message.chunk !== undefined;
    return { workId: message.workId, replicationId: message.replicationId, table: message.table, stage: 'extract', at: at.toISOString(), ...(epochKnown && { epoch: message.epoch }) };
  }
  const stage = subject === PipelineSubjects.batchExtracted ? 'stage' : subject === PipelineSubjects.batchStaged ? 'load' : null;
  if (stage === null || !('batch' in message)) return null;
  const { batch } = message;
  return { workId: message.workId, replicationId: batch.replicationId, table: batch.definition.table, stage, at: at.toISOString(), epoch: batch.epoch };
}

/**
 * Sends the registry a heartbeat of the unit of work when a handler starts and every `intervalMs` until it
 * ends (best effort, core NATS): the registry shows it as the table's last progress and knows the work is
 * alive. A failing send never fails the work. A group's members beat only from the first interval on: a group
 * is small changes, most done before then, and a beat per member at its start is a control-database write each.
 */
export function reportingProgress<S extends PipelineSubject>(
  options: PipelineWorkerOptions<S>,
  send: (progress: WorkProgress) => void,
  intervalMs = WORK_HEARTBEAT_MS,
): PipelineWorkerOptions<S> {
  const beat = (payload: PipelinePayloadOf<S>, deliveryCount: number): void => {
    try {
      for (const progress of workProgressOf(options.subject, payload, new Date(), deliveryCount)) send(progress);
    } catch {
      // A lost heartbeat costs nothing but freshness.
    }
  };
  return {
    ...options,
    handle: async (payload, context) => {
      if (!('group' in payload)) beat(payload, context.deliveryCount);
      const timer = setInterval(() => beat(payload, context.deliveryCount), intervalMs);
      try {
        await options.handle(payload, context);
      } finally {
        clearInterval(timer);
      }
    },
  };
}
