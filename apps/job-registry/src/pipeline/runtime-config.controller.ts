import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Subjects, type RpcReply, type RuntimeConfigReply } from '@svc/contracts';
import { RuntimeConfigService } from './runtime-config.service';

@Controller()
export class RuntimeConfigController {
  constructor(private readonly runtimeConfigs: RuntimeConfigService) {}

  @MessagePattern(Subjects.registryRuntimeConfig)
  runtimeConfig(@Payload() message: unknown): Promise<RpcReply<RuntimeConfigReply>> {
    return this.runtimeConfigs.runtimeConfig(message);
  }
}
