import { Controller } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { Subjects, type RpcReply, type SeedPlanReply, type WorkAttemptReply } from '@svc/contracts';
import { PipelineEventsService } from './pipeline-events.service';
import { SeedPlansService } from './seed-plans.service';

@Controller()
export class WorkProgressController {
  constructor(
    private readonly events: PipelineEventsService,
    private readonly seedPlans: SeedPlansService,
  ) {}

  @EventPattern(Subjects.workProgress)
  workProgress(@Payload() message: unknown): Promise<void> {
    return this.events.workProgress(message);
  }

  @MessagePattern(Subjects.registryWorkAttempt)
  workAttempt(@Payload() message: unknown): Promise<RpcReply<WorkAttemptReply>> {
    return this.events.workAttempt(message);
  }

  @MessagePattern(Subjects.registrySeedPlan)
  seedPlan(@Payload() message: unknown): Promise<RpcReply<SeedPlanReply>> {
    return this.seedPlans.seedPlan(message);
  }
}
