import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Subjects, type DiscoverTablesReply, type RpcReply } from '@svc/contracts';
import { DiscoverService } from './discover.service';

@Controller()
export class DiscoverController {
  constructor(private readonly discovery: DiscoverService) {}

  @MessagePattern(Subjects.extractorDiscoverTables)
  discover(@Payload() message: unknown): Promise<RpcReply<DiscoverTablesReply>> {
    return this.discovery.discover(message);
  }
}
