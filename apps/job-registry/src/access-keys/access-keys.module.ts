import { Module } from '@nestjs/common';
import { AccessKeysController } from './access-keys.controller';
import { AccessKeysService } from './access-keys.service';
import { CredentialGenerator } from './credential-generator';

@Module({
  controllers: [AccessKeysController],
  providers: [AccessKeysService, CredentialGenerator],
})
export class AccessKeysModule {}
