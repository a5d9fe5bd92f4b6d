import type { ExtractRequested } from '@svc/contracts';
import type { JsonLogger } from '@svc/logging';

/**
 * Runs after a claim is committed and before its work is published. In production it does nothing; it
 * exists so that tests can stop a scheduler exactly between claim and publish (a crash there must cost
 * seconds, see PipelineScheduler.publishUnconfirmedClaims). A rejection counts as a failed publish.
 */
export type BeforeWorkPublish = (work: ExtractRequested) => Promise<void>;

export const BEFORE_WORK_PUBLISH = Symbol('BEFORE_WORK_PUBLISH');

/**
 * The hook from configuration: with SVC_TEST_HOOK_HOLD_CLAIM_BEFORE_PUBLISH_MS > 0 (tests only: a kill
 * test waits for the log line, then SIGKILLs the registry) each claim is held that long before its
 * publish; otherwise a no-op.
 */
export function beforeWorkPublishFromConfig(holdMs: number, logger: JsonLogger): BeforeWorkPublish {
  if (holdMs <= 0) return () => Promise.resolve();
  return async (work) => {
    logger.warn('test hook: holding claimed work before publishing it', { replicationId: work.replicationId, workId: work.workId, holdMs });
    // Unreferenced: a process held here (to be killed) can still exit normally.
    await new Promise((resume) => setTimeout(resume, holdMs).unref());
  };
}
