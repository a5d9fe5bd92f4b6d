import { Injectable } from '@nestjs/common';
import { ErrorCode, Subjects, type OperationName, type SignatureCheckReply, type SignedCall } from '@svc/contracts';
import { NatsRequester } from '@svc/messaging';
import { ApiError } from './api-error';

/**
 * Asks the registry whether a call is signed by a known key allowed the operation. The registry holds the secrets and
 * verifies; the gateway never sees a secret or a key derived from one, so its bus identity speaks for no access key.
 */
@Injectable()
export class SignatureCheck {
  constructor(private readonly requester: NatsRequester) {}

  /** The signing key and what it may call; an ApiError 403 with the registry's reason, or 503 when it cannot answer. */
  async check(operation: OperationName, signed: SignedCall): Promise<SignatureCheckReply> {
    const reply = await this.requester.request(Subjects.registryCheckSignature, { operation, signed }).catch(() => {
      throw new ApiError(503, ['the job registry is not answering; try again shortly']);
    });
    if (reply.ok) return reply.value;
    if (reply.error.code === ErrorCode.Forbidden) throw new ApiError(403, reply.error.messages);
    if (reply.error.code === ErrorCode.ValidationFailed) {
      throw new ApiError(403, ['the request signs more headers, or longer ones, than can be checked (at most 128 headers of 16 values each)']);
    }
    throw new ApiError(503, ['the job registry could not check the signature; try again shortly']);
  }
}
