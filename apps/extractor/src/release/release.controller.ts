import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Subjects, type ReleaseTablesReply, type RpcReply } from '@svc/contracts';
import { ReleaseService } from './release.service';

@Controller()
export class ReleaseController {
  constructor(private readonly releases: ReleaseService) {}

  @MessagePattern(Subjects.extractorReleaseTables)
  release(@Payload() message: unknown): Promise<RpcReply<ReleaseTablesReply>> {
    return this.releases.release(message);
  }
}
