import { Client } from 'pg';
import { PipelineConsumers, PipelineStreams } from '@svc/contracts';
import type { TestStack } from '@svc/system-testing';

/**
 * Where work stands when a test finds the pipeline frozen: each pipeline consumer's queue on the bus (pending,
 * awaiting an ack, redelivered) and every claim in the control database with when it was published and last showed
 * progress. Tells "never published", "published but nobody took it" and "taken, then silent" apart.
 */
export async function workDiagnostics(stack: TestStack): Promise<string> {
  const [bus, claims] = await Promise.all([busQueues(stack).catch((error: Error) => `bus: ${error.message}`), claimsInFlight(stack).catch((error: Error) => `claims: ${error.message}`)]);
  return `${bus}\n${claims}`;
}

async function busQueues(stack: TestStack): Promise<string> {
  const connection = await stack.connectNats('e2e-work-diagnostics');
  try {
    const manager = await connection.jetstreamManager();
    const lines = [];
    for (const { durableName } of Object.values(PipelineConsumers)) {
      const info = await manager.consumers.info(PipelineStreams.work.name, durableName).catch(() => null);
      if (!info) {
        lines.push(`  ${durableName}: no consumer`);
        continue;
      }
      lines.push(
        `  ${durableName}: pending ${info.num_pending}, ack-pending ${info.num_ack_pending}, redelivered ${info.num_redelivered}, ` +
          `delivered to seq ${info.delivered.stream_seq}, acked to seq ${info.ack_floor.stream_seq}, pulls waiting ${info.num_waiting}`,
      );
    }
    return `consumers of ${PipelineStreams.work.name}:\n${lines.join('\n')}`;
  } finally {
    await connection.close();
  }
}

async function claimsInFlight(stack: TestStack): Promise<string> {
  const client = new Client({ connectionString: stack.control.url });
  await client.connect();
  try {
    const { rows } = await client.query<Record<string, unknown>>(
      `SELECT replication_id, table_name, in_flight_work_id, in_flight_kind, in_flight_since, in_flight_published_at, last_progress_at, updated_at
         FROM table_states WHERE in_flight_work_id IS NOT NULL ORDER BY in_flight_since`,
    );
    return `claims in flight (${rows.length}):\n${rows.map((row) => `  ${JSON.stringify(row)}`).join('\n')}`;
  } finally {
    await client.end();
  }
}
