import { ErrorCode, Subjects, rpcError, rpcOk, type RpcReply, type SignatureCheckReply, type SignedCall } from '@svc/contracts';
import type { NatsRequester } from '@svc/messaging';
import { ApiError } from './api-error';
import { SignatureCheck } from './signature-check';

const SIGNED: SignedCall = { method: 'POST', path: '/api/ListAccessKeys', query: {}, headers: { authorization: ['SVC4-HMAC-SHA256 …'] } };

function checkAnswering(answer: () => Promise<RpcReply<SignatureCheckReply>>) {
  const asked: { subject: string; payload: unknown }[] = [];
  const requester = {
    request: async (subject: string, payload: unknown) => {
      asked.push({ subject, payload });
      return answer();
    },
  } as unknown as NatsRequester;
  return { asked, check: new SignatureCheck(requester) };
}

describe('SignatureCheck (the gateway asks, the registry verifies)', () => {
  it('sends the operation and the signed call, and answers the key the registry names', async () => {
    const { asked, check } = checkAnswering(async () => rpcOk({ accessKeyId: 'SVCKEY', allowedOperations: ['ListAccessKeys'] }));
    await expect(check.check('ListAccessKeys', SIGNED)).resolves.toEqual({ accessKeyId: 'SVCKEY', allowedOperations: ['ListAccessKeys'] });
    expect(asked).toEqual([{ subject: Subjects.registryCheckSignature, payload: { operation: 'ListAccessKeys', signed: SIGNED } }]);
  });

  it.each([
    ['a refusal', async () => rpcError(ErrorCode.Forbidden, ['access key SVCKEY is not allowed to call ListAccessKeys']), 403, 'not allowed to call ListAccessKeys'],
    ['a call it cannot read', async () => rpcError(ErrorCode.ValidationFailed, ['signed.headers: …']), 403, 'more headers'],
    ['an internal error', async () => rpcError(ErrorCode.Internal, ['internal error']), 503, 'could not check the signature'],
    ['no answer', async () => Promise.reject(new Error('TIMEOUT')), 503, 'not answering'],
  ] as const)('turns %s into an answer of its own', async (_case, answer, status, message) => {
    const refusal = await checkAnswering(answer)
      .check.check('ListAccessKeys', SIGNED)
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal).toMatchObject({ status, messages: [expect.stringContaining(message)] });
  });
});
