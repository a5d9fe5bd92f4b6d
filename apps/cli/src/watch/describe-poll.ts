import { prepareRequest } from '../body/request-body';
import type { ClientSettings } from '../credentials/client-settings';
import { ExitCode } from '../exit-codes';
import type { SendOperationInput, SendOutcome } from '../http/send-operation';
import { errorReport } from '../output/render-response';
import { parseReplicationSnapshot } from './replication-snapshot';
import { oneLineForTerminal } from './terminal-text';
import type { PollOutcome } from './watch-loop';

/** A poll waits at most this long; a slower answer counts as a transient failure and the next poll follows. */
export const WATCH_CALL_TIMEOUT_MS = 30_000;

/** Answers worth waiting out: the gateway or registry is restarting, overloaded or slow. */
function isTransientStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** One signed DescribeWarehouseReplication call (always JSON), classified for the watch loop. */
export function describePoller(
  send: (input: SendOperationInput) => Promise<SendOutcome>,
  settings: ClientSettings,
  replicationId: string,
): (signal: AbortSignal) => Promise<PollOutcome> {
  const request = prepareRequest({
    operation: 'DescribeWarehouseReplication',
    source: { kind: 'fields', assignments: [{ path: ['replicationId'], value: replicationId }] },
  });
  return async (signal) => {
    const outcome = await send({ ...settings, ...request, timeoutMs: WATCH_CALL_TIMEOUT_MS, signal });
    if (outcome.kind === 'unreachable') return { kind: 'transient', message: outcome.message, unreachable: true };
    if (outcome.status >= 200 && outcome.status < 300) {
      const snapshot = parseReplicationSnapshot(outcome.body.toString('utf8'));
      if (snapshot !== undefined) return { kind: 'snapshot', snapshot };
      const stderr = `Error: HTTP ${outcome.status}: the answer is not a JSON replication description\n`;
      return { kind: 'fatal', exitCode: ExitCode.Failed, stderr };
    }
    const report = errorReport(outcome);
    if (isTransientStatus(outcome.status)) {
      return { kind: 'transient', message: [report.heading, ...report.messages].join(': '), unreachable: false };
    }
    // Server messages quote table names from user databases: escaped like everything else the watch prints.
    const lines = [`Error: ${report.heading}`, ...report.messages.map((message) => `  - ${oneLineForTerminal(message)}`)];
    return { kind: 'fatal', exitCode: ExitCode.Failed, stderr: `${lines.join('\n')}\n` };
  };
}
