import type { PipelineSubject } from '@svc/contracts';
import type { JsonLogger } from '@svc/logging';
import { RetryableWorkError, TerminalWorkError, WorkAbortedError, type PipelineWorkerOptions } from '@svc/messaging';
import { failureLogFields } from '@svc/pipeline-runtime';

/**
 * Every failed attempt and every operational problem of a consumer leaves a log line. A work error's message is
 * its classified reason; the line also says what the server said (its detail) and where the failure happened
 * (failureLogFields: redacted, bounded), so the service's log shows the cause the reason leaves out.
 */
export function loggingFailures<S extends PipelineSubject>(options: PipelineWorkerOptions<S>, logger: Pick<JsonLogger, 'info' | 'warn'>): PipelineWorkerOptions<S> {
  const { subject } = options;
  return {
    ...options,
    handle: async (payload, context) => {
      try {
        await options.handle(payload, context);
      } catch (error) {
        if (error instanceof WorkAbortedError) {
          logger.info('work handed back: the worker is shutting down', { subject, delivery: context.deliveryCount });
          throw error;
        }
        const detail = error instanceof RetryableWorkError || error instanceof TerminalWorkError ? error.detail : undefined;
        const reason = error instanceof Error ? error.message : String(error);
        logger.warn('work failed', { subject, delivery: context.deliveryCount, ...failureLogFields(error, { reason, ...(detail !== undefined && { detail }) }) });
        throw error;
      }
    },
    onError: (error, activity) => logger.warn('consumer problem', { subject, activity, reason: error instanceof Error ? error.message : String(error) }),
    // A message given up (malformed, or out of deliveries) is said in the log: its work may be reported to nobody (a
    // payload too malformed to name its work), and an installation's messages a worker could not read went unseen so.
    onGiveUp: async (payload, reason, detail) => {
      logger.warn('message given up', { subject, reason });
      await options.onGiveUp?.(payload, reason, detail);
    },
  };
}
