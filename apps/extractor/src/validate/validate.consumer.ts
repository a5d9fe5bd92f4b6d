import { PipelineConsumers, isValidateRequested, type PipelineSubjects } from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import type { PipelineWorkerOptions } from '@svc/messaging';
import type { AnyPipelineWorkerOptions } from '@svc/pipeline-nest';
import { ValidationSupersededError, type ValidateService } from './validate.service';

/** The extractors' shared durable consumer of table validations. */
export function validateConsumer(service: ValidateService, settings: WorkerConfig): AnyPipelineWorkerOptions {
  const options: PipelineWorkerOptions<typeof PipelineSubjects.validateRequested> = {
    ...PipelineConsumers.validator,
    concurrency: settings.concurrency,
    guard: isValidateRequested,
    handle: async (request) => {
      try {
        await service.validate(request);
      } catch (error) {
        // Dispatched again meanwhile (or the validation is gone): the other work reports; this one just ends.
        if (!(error instanceof ValidationSupersededError)) throw error;
      }
    },
  };
  return options as unknown as AnyPipelineWorkerOptions;
}
