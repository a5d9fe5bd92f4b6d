import { Subjects, type CreateAccessKeyReply, type CreateAccessKeyRequest, type RpcReply } from '@svc/contracts';
import { MessagingError } from '@svc/messaging';
import { CliFailure, ExitCode } from '../exit-codes';
import { PROFILE_KEYS } from '../credentials/client-settings';

/** The slice of NatsRequester this command needs, so tests can hand in a fake. */
export interface AccessKeyRequester {
  request(subject: typeof Subjects.registryCreateAccessKey, payload: CreateAccessKeyRequest): Promise<RpcReply<CreateAccessKeyReply>>;
}

/** Asks the job registry for a new key. Errors become CliFailure: 1 for a refusal, 2 when nobody answers. */
export async function createAccessKey(requester: AccessKeyRequester, request: CreateAccessKeyRequest): Promise<CreateAccessKeyReply> {
  let reply: RpcReply<CreateAccessKeyReply>;
  try {
    reply = await requester.request(Subjects.registryCreateAccessKey, request);
  } catch (error) {
    if (error instanceof MessagingError) {
      const hint = error.kind === 'NoResponders' || error.kind === 'Timeout' ? ' (is the job-registry service running?)' : '';
      throw new CliFailure(`${error.message}${hint}`, error.kind === 'RemoteError' ? ExitCode.Failed : ExitCode.Unreachable);
    }
    throw error;
  }
  if (!reply.ok) {
    throw new CliFailure([`the registry refused: ${reply.error.code}`, ...reply.error.messages.map((m) => `  - ${m}`)].join('\n'), ExitCode.Failed);
  }
  return reply.value;
}

/** The one place the secret is ever printed, once, right after it is made. */
export function renderCreatedKey(key: CreateAccessKeyReply): string {
  return [
    `Access key created for: ${key.allowedOperations.join(', ')}`,
    key.replicationScope === 'All' ? 'It acts on every replication and on the whole service.' : 'It acts on the replications it creates, and no others.',
    'The secret is shown only this once. Put these two lines under a [profile] in ~/.svc/credentials:',
    '',
    `${PROFILE_KEYS.accessKeyId} = ${key.accessKeyId}`,
    `${PROFILE_KEYS.secretAccessKey} = ${key.secretKey}`,
    '',
  ].join('\n');
}
