import type { PipelineSubject } from '@svc/contracts';
import type { PipelineWorkerOptions } from '@svc/messaging';

/**
 * Handles a message only when its unit of work has not been cancelled; a cancelled unit's message is
 * acknowledged without any work (its handler resolves) and reported through `onDropped`.
 */
export function skippingCancelledWork<S extends PipelineSubject>(
  options: PipelineWorkerOptions<S>,
  cancelled: { has(workId: string): boolean },
  onDropped: (workId: string) => void,
): PipelineWorkerOptions<S> {
  return {
    ...options,
    handle: async (payload, context) => {
      if (cancelled.has(payload.workId)) {
        onDropped(payload.workId);
        return;
      }
      await options.handle(payload, context);
    },
  };
}
