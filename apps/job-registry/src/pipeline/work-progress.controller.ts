import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { Subjects } from '@svc/contracts';
import { PipelineEventsService } from './pipeline-events.service';

@Controller()
export class WorkProgressController {
  constructor(private readonly events: PipelineEventsService) {}

  @EventPattern(Subjects.workProgress)
  workProgress(@Payload() message: unknown): Promise<void> {
    return this.events.workProgress(message);
  }
}
