import { Module } from '@nestjs/common';
import { AccessKeysController } from './access-keys.controller';
import { AccessKeyOperations } from './access-key-operations.service';
import { AccessKeysService } from './access-keys.service';
import { CredentialGenerator } from './credential-generator';

@Module({
  controllers: [AccessKeysController],
  providers: [AccessKeysService, CredentialGenerator, AccessKeyOperations],
  exports: [AccessKeyOperations],
})
export class AccessKeysModule {}
