import { Injectable } from '@nestjs/common';
import { generateAccessKeyId, generateSecretKey } from '@svc/crypto';

/** Randomness behind an adapter, so services can be tested with known values. */
@Injectable()
export class CredentialGenerator {
  accessKeyId(): string {
    return generateAccessKeyId();
  }

  secretKey(): string {
    return generateSecretKey();
  }
}
