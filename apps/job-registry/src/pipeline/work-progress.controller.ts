import { Controller } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { Subjects, type RpcReply, type WorkAttemptReply } from '@svc/contracts';
import { PipelineEventsService } from './pipeline-events.service';

@Controller()
export class WorkProgressController {
  constructor(private readonly events: PipelineEventsService) {}

  @EventPattern(Subjects.workProgress)
  workProgress(@Payload() message: unknown): Promise<void> {
    return this.events.workProgress(message);
  }

  @MessagePattern(Subjects.registryWorkAttempt)
  workAttempt(@Payload() message: unknown): Promise<RpcReply<WorkAttemptReply>> {
    return this.events.workAttempt(message);
  }
}
