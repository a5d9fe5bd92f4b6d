import { PipelineSubjects, type PipelinePayloadOf, type PipelineSubject, type WorkProgress } from '@svc/contracts';
import type { PipelineWorkerOptions } from '@svc/messaging';

/** How often a worker tells the registry that it is still handling a unit of work. */
export const WORK_HEARTBEAT_MS = 10000;

/** The heartbeat of a message a worker handles; null for subjects that are no stage of a unit of work. */
export function workProgressOf<S extends PipelineSubject>(subject: S, payload: PipelinePayloadOf<S>, at: Date): WorkProgress | null {
  const message: PipelinePayloadOf<PipelineSubject> = payload;
  if (subject === PipelineSubjects.extractRequested && 'kind' in message && 'requestedAt' in message) {
    return { workId: message.workId, replicationId: message.replicationId, table: message.table, stage: 'extract', at: at.toISOString() };
  }
  const stage = subject === PipelineSubjects.batchExtracted ? 'stage' : subject === PipelineSubjects.batchStaged ? 'load' : null;
  if (stage === null || !('batch' in message)) return null;
  const { batch } = message;
  return { workId: message.workId, replicationId: batch.replicationId, table: batch.definition.table, stage, at: at.toISOString() };
}

/**
 * Sends the registry a heartbeat of the unit of work when a handler starts and every `intervalMs` until it
 * ends (best effort, core NATS): the registry shows it as the table's last progress and knows the work is
 * alive. A failing send never fails the work.
 */
export function reportingProgress<S extends PipelineSubject>(
  options: PipelineWorkerOptions<S>,
  send: (progress: WorkProgress) => void,
  intervalMs = WORK_HEARTBEAT_MS,
): PipelineWorkerOptions<S> {
  const beat = (payload: PipelinePayloadOf<S>): void => {
    try {
      const progress = workProgressOf(options.subject, payload, new Date());
      if (progress) send(progress);
    } catch {
      // A lost heartbeat costs nothing but freshness.
    }
  };
  return {
    ...options,
    handle: async (payload, context) => {
      beat(payload);
      const timer = setInterval(() => beat(payload), intervalMs);
      try {
        await options.handle(payload, context);
      } finally {
        clearInterval(timer);
      }
    },
  };
}
