import { MessagingError } from '@svc/messaging';
import { ErrorCode, rpcError, rpcOk, type CreateAccessKeyReply } from '@svc/contracts';
import { CliFailure, ExitCode } from '../exit-codes';
import { createAccessKey, renderCreatedKey, type AccessKeyRequester } from './create-access-key';

const created: CreateAccessKeyReply = { accessKeyId: 'AKNEW', secretKey: 'fresh-secret', allowedOperations: ['ListWarehouseReplications'], replicationScope: 'Own' };

function requester(answer: () => ReturnType<AccessKeyRequester['request']>): AccessKeyRequester & { calls: unknown[][] } {
  const calls: unknown[][] = [];
  return {
    calls,
    request: (subject, payload) => {
      calls.push([subject, payload]);
      return answer();
    },
  };
}

async function failure(promise: Promise<unknown>): Promise<CliFailure> {
  const error: unknown = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof CliFailure)) throw new Error(`expected a CliFailure, got ${String(error)}`);
  return error;
}

describe('createAccessKey', () => {
  it('sends the request on the registry subject and returns the new key', async () => {
    const fake = requester(async () => rpcOk(created));
    await expect(createAccessKey(fake, { allowedOperations: ['ListWarehouseReplications'], description: 'ci' })).resolves.toEqual(created);
    expect(fake.calls).toEqual([['svc.registry.v1.access-key.create', { allowedOperations: ['ListWarehouseReplications'], description: 'ci' }]]);
  });

  it('turns a refusal into exit code 1 with the messages', async () => {
    const error = await failure(createAccessKey(requester(async () => rpcError(ErrorCode.ValidationFailed, ['allowedOperations: bad'])), { allowedOperations: ['*'] }));
    expect(error.exitCode).toBe(ExitCode.Failed);
    expect(error.message).toBe('the registry refused: ValidationFailed\n  - allowedOperations: bad');
  });

  it('turns "nobody answers" into exit code 2 with a hint', async () => {
    const error = await failure(
      createAccessKey(
        requester(async () => {
          throw new MessagingError('no service answers on svc.registry.v1.access-key.create', 'NoResponders');
        }),
        { allowedOperations: ['*'] },
      ),
    );
    expect(error.exitCode).toBe(ExitCode.Unreachable);
    expect(error.message).toContain('is the job-registry service running?');
  });
});

describe('renderCreatedKey', () => {
  it('prints the id and the secret once, as the two credential-file lines', () => {
    const text = renderCreatedKey(created);
    expect(text).toContain('Access key created for: ListWarehouseReplications\n');
    expect(text).toContain('\nsvc_access_key_id = AKNEW\nsvc_secret_access_key = fresh-secret\n');
    expect(text.match(/fresh-secret/g)).toHaveLength(1);
  });
});
