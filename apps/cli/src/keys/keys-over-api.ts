import type {
  AccessKeyDescription,
  CreateAccessKeyOperationResponse,
  ManageAccessKeysReply,
  ManageAccessKeysRequest,
  OperationName,
  RotateAccessKeyResponse,
} from '@svc/contracts';
import { NEVER_EXPIRES } from '@svc/contracts';
import type { KeysCreateCommand } from '../args/parse-args';
import { CliFailure, ExitCode } from '../exit-codes';
import type { ClientSettings } from '../credentials/client-settings';
import type { SendOperationInput, SendOutcome } from '../http/send-operation';
import { renderResponse } from '../output/render-response';

/** One signed call of `svc keys`: the operation and its JSON body. */
export interface KeysApiCall {
  operation: OperationName;
  body: Record<string, unknown>;
}

/** `svc keys create` as CreateAccessKey. */
export function createCall(command: KeysCreateCommand): KeysApiCall {
  return {
    operation: 'CreateAccessKey',
    body: {
      allowedOperations: command.allowedOperations,
      replicationScope: command.replicationScope,
      ...(command.description !== undefined && { description: command.description }),
      ...(command.expiresAt !== undefined && { expiresAt: command.expiresAt }),
    },
  };
}

/** `svc keys list|disable|enable|delete|rotate|expire` as the API operation that does the same. */
export function lifecycleCall(request: ManageAccessKeysRequest): KeysApiCall {
  const accessKeyId = request.accessKeyId ?? '';
  switch (request.action) {
    case 'List':
      return { operation: 'ListAccessKeys', body: {} };
    case 'Disable':
    case 'Enable':
      return { operation: 'UpdateAccessKey', body: { accessKeyId, status: request.action === 'Disable' ? 'Disabled' : 'Enabled' } };
    case 'Expire':
      return { operation: 'UpdateAccessKey', body: { accessKeyId, expiresAt: request.expiresAt ?? NEVER_EXPIRES } };
    case 'Delete':
      return { operation: 'DeleteAccessKey', body: { accessKeyId } };
    case 'Rotate':
      return { operation: 'RotateAccessKey', body: { accessKeyId, ...(request.overlapMinutes !== undefined && { overlapMinutes: request.overlapMinutes }) } };
  }
}

export type Send = (input: SendOperationInput) => Promise<SendOutcome>;

/**
 * Signs and sends the call; answers its JSON body (an empty one as {}). Exit codes as for every operation: an
 * error answer prints its messages and exits 1, no answer at all exits 2.
 */
export async function callKeysApi(send: Send, settings: ClientSettings, call: KeysApiCall, writeStderr: (text: string) => void): Promise<Record<string, unknown>> {
  const outcome = await send({ ...settings, operation: call.operation, contentType: 'application/json', body: Buffer.from(JSON.stringify(call.body), 'utf8') });
  if (outcome.kind === 'unreachable') throw new CliFailure(outcome.message, ExitCode.Unreachable);
  if (outcome.status < 200 || outcome.status >= 300) {
    const rendered = renderResponse(outcome, { raw: false });
    writeStderr(rendered.stderr);
    throw new AnsweredFailure(rendered.exitCode);
  }
  const text = outcome.body.toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new CliFailure(`${call.operation} answered ${outcome.status} with a body that is not JSON`, ExitCode.Failed);
  }
}

/** The error answer is already printed; only its exit code is left to return. */
export class AnsweredFailure extends Error {
  constructor(readonly exitCode: ExitCode) {
    super('the API refused the call');
    this.name = 'AnsweredFailure';
  }
}

/** CreateAccessKey's answer in the shape `renderCreatedKey` prints. */
export function createdKeyOf(answer: Record<string, unknown>): { accessKeyId: string; secretKey: string; allowedOperations: string[]; replicationScope: 'Own' | 'All' } {
  const created = answer as unknown as CreateAccessKeyOperationResponse;
  return { accessKeyId: created.accessKeyId, secretKey: created.secretAccessKey, allowedOperations: created.allowedOperations, replicationScope: created.replicationScope };
}

/** The answer of a lifecycle operation in the shape `renderKeyLifecycle` prints. */
export function lifecycleReplyOf(request: ManageAccessKeysRequest, answer: Record<string, unknown>): ManageAccessKeysReply {
  if (request.action === 'List') return { accessKeys: (answer as { accessKeys?: AccessKeyDescription[] }).accessKeys ?? [] };
  if (request.action === 'Rotate') {
    const rotated = answer as unknown as RotateAccessKeyResponse;
    return { secretKey: rotated.secretAccessKey, previousSecretValidUntil: rotated.previousSecretValidUntil };
  }
  return {};
}
