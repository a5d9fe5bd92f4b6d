import { Module } from '@nestjs/common';
import { AccessKeysController } from './access-keys.controller';
import { AccessKeyOperations } from './access-key-operations.service';
import { AccessKeysService } from './access-keys.service';
import { CredentialGenerator } from './credential-generator';
import { SignatureVerifier } from './signature-verifier';

@Module({
  controllers: [AccessKeysController],
  providers: [AccessKeysService, CredentialGenerator, AccessKeyOperations, SignatureVerifier],
  exports: [AccessKeyOperations, SignatureVerifier],
})
export class AccessKeysModule {}
