import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Subjects, type ChangedTablesReply, type RpcReply } from '@svc/contracts';
import { ChangedTablesService } from './changed-tables.service';

@Controller()
export class ChangedTablesController {
  constructor(private readonly probe: ChangedTablesService) {}

  @MessagePattern(Subjects.extractorChangedTables)
  changedTables(@Payload() message: unknown): Promise<RpcReply<ChangedTablesReply>> {
    return this.probe.changedTables(message);
  }
}
