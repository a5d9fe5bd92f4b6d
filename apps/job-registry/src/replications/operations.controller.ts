import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Subjects, type ReplyOf } from '@svc/contracts';
import { OperationDispatcher } from './operation-dispatcher';

@Controller()
export class OperationsController {
  constructor(@Inject(OperationDispatcher) private readonly dispatcher: OperationDispatcher) {}

  @MessagePattern(Subjects.registryOperation)
  handle(@Payload() message: unknown): Promise<ReplyOf<typeof Subjects.registryOperation>> {
    return this.dispatcher.handle(message);
  }
}
