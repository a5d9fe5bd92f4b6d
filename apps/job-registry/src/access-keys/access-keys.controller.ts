import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Subjects, type ReplyOf } from '@svc/contracts';
import { AccessKeysService } from './access-keys.service';

@Controller()
export class AccessKeysController {
  constructor(@Inject(AccessKeysService) private readonly accessKeys: AccessKeysService) {}

  @MessagePattern(Subjects.registrySigningKey)
  signingKey(@Payload() message: unknown): Promise<ReplyOf<typeof Subjects.registrySigningKey>> {
    return this.accessKeys.signingKey(message);
  }

  @MessagePattern(Subjects.registryManageAccessKeys)
  manageAccessKeys(@Payload() message: unknown): Promise<ReplyOf<typeof Subjects.registryManageAccessKeys>> {
    return this.accessKeys.manageAccessKeys(message);
  }

  @MessagePattern(Subjects.registryCreateAccessKey)
  createAccessKey(@Payload() message: unknown): Promise<ReplyOf<typeof Subjects.registryCreateAccessKey>> {
    return this.accessKeys.createAccessKey(message);
  }
}
