import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Subjects, type ReplyOf } from '@svc/contracts';
import { AccessKeysService } from './access-keys.service';
import { SignatureVerifier } from './signature-verifier';

@Controller()
export class AccessKeysController {
  constructor(
    @Inject(AccessKeysService) private readonly accessKeys: AccessKeysService,
    @Inject(SignatureVerifier) private readonly signatures: SignatureVerifier,
  ) {}

  @MessagePattern(Subjects.registryCheckSignature)
  checkSignature(@Payload() message: unknown): Promise<ReplyOf<typeof Subjects.registryCheckSignature>> {
    return this.signatures.checkSignature(message);
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
