import type { RpcReply } from '@svc/contracts';
import { MessagingError } from '@svc/messaging';
import { CliFailure, ExitCode } from '../exit-codes';

/** The value of a registry request over NATS. Errors become CliFailure: 1 for a refusal, 2 when nobody answers. */
export async function registryAnswer<T>(ask: () => Promise<RpcReply<T>>): Promise<T> {
  let reply: RpcReply<T>;
  try {
    reply = await ask();
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
