import { Subjects, type CreateAccessKeyReply, type CreateAccessKeyRequest, type RpcReply } from '@svc/contracts';
import { PROFILE_KEYS } from '../credentials/client-settings';
import { registryAnswer } from './registry-answer';

/** The slice of NatsRequester this command needs, so tests can hand in a fake. */
export interface AccessKeyRequester {
  request(subject: typeof Subjects.registryCreateAccessKey, payload: CreateAccessKeyRequest): Promise<RpcReply<CreateAccessKeyReply>>;
}

/** Asks the job registry for a new key. Errors become CliFailure: 1 for a refusal, 2 when nobody answers. */
export function createAccessKey(requester: AccessKeyRequester, request: CreateAccessKeyRequest): Promise<CreateAccessKeyReply> {
  return registryAnswer(() => requester.request(Subjects.registryCreateAccessKey, request));
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
