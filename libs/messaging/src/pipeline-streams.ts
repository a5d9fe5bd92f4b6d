import { RetentionPolicy, StorageType, nanos, type JetStreamManager, type NatsConnection, type StreamConfig, type StreamInfo, type StreamUpdateConfig } from 'nats';
import { PipelineStreams } from '@svc/contracts';
import { JetStreamErrorCode, errorText, jetStreamErrorCode } from './jetstream-errors';
import { busNames, type BusNames } from './bus-names';

/** Largest message the rows stream stores; a row chunk plus its headers must fit. */
export const ROWS_MAX_MESSAGE_BYTES = 1024 * 1024;

const WORK_DUPLICATE_WINDOW_MS = 10 * 60 * 1000;
const ROWS_MAX_AGE_MS = 24 * 60 * 60 * 1000;

type DesiredStream = Partial<StreamConfig> & Pick<StreamConfig, 'name' | 'retention' | 'storage'>;

/** The configuration of the two pipeline streams (exported for tests and ops tooling). */
export function pipelineStreamConfigs(replicas = 1, names: BusNames = busNames()): DesiredStream[] {
  return [
    {
      name: names.workStream,
      subjects: PipelineStreams.work.subjects.map((subject) => names.subject(subject)),
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: nanos(WORK_DUPLICATE_WINDOW_MS),
      num_replicas: replicas,
    },
    {
      name: names.rowsStream,
      subjects: PipelineStreams.rows.subjects.map((subject) => names.subject(subject)),
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: nanos(ROWS_MAX_AGE_MS),
      max_msg_size: ROWS_MAX_MESSAGE_BYTES,
      num_replicas: replicas,
    },
  ];
}

/**
 * Creates or updates the two pipeline streams (work: WorkQueue retention, file storage, duplicate window
 * 10 min; rows: Limits retention, file storage, max age 24 h, max message size 1 MiB). Idempotent; safe
 * when several services start at once: creating a stream that exists with the same configuration is a
 * no-op on the server, and a different configuration turns into an update.
 */
export async function ensurePipelineStreams(connection: NatsConnection, options: { replicas?: number } = {}): Promise<void> {
  const manager = await connection.jetstreamManager();
  for (const desired of pipelineStreamConfigs(options.replicas ?? 1)) {
    await ensureStream(manager, desired);
  }
}

/** Pause between looks for streams the registry has not made yet. */
const STREAMS_POLL_MS = 500;

/**
 * Waits until both pipeline streams exist: only the registry creates and changes streams (the bus lets no other
 * role), so a worker that starts first waits for it. `onWait` hears each look that found a stream missing.
 */
export async function waitForPipelineStreams(connection: NatsConnection, options: { signal?: AbortSignal; onWait?: (missing: string[]) => void } = {}): Promise<void> {
  for (;;) {
    options.signal?.throwIfAborted();
    const missing: string[] = [];
    try {
      const manager = await connection.jetstreamManager();
      for (const { name } of pipelineStreamConfigs()) {
        if (!(await streamExists(manager, name))) missing.push(name);
      }
    } catch {
      missing.push(...pipelineStreamConfigs().map(({ name }) => name));
    }
    if (missing.length === 0) return;
    options.onWait?.(missing);
    await new Promise((done) => setTimeout(done, STREAMS_POLL_MS));
  }
}

async function ensureStream(manager: JetStreamManager, desired: DesiredStream): Promise<void> {
  let info: StreamInfo;
  try {
    info = await manager.streams.add(desired);
  } catch (error) {
    const code = jetStreamErrorCode(error);
    const createdMeanwhile = code === JetStreamErrorCode.streamSubjectOverlap && (await streamExists(manager, desired.name));
    if (code !== JetStreamErrorCode.streamNameInUse && !createdMeanwhile) {
      throw new Error(`cannot create JetStream stream ${desired.name}: ${errorText(error)}`);
    }
    try {
      info = await manager.streams.update(desired.name, updatableFields(desired));
    } catch (updateError) {
      throw new Error(`cannot update JetStream stream ${desired.name}: ${errorText(updateError)}`);
    }
  }
  // An update keeps retention and storage as they were; a stream created differently by someone else
  // must not pass for ours (a Limits "work" stream would never forget acknowledged work).
  if (info.config.retention !== desired.retention || info.config.storage !== desired.storage) {
    throw new Error(
      `JetStream stream ${desired.name} exists with retention '${info.config.retention}' and storage '${info.config.storage}'; ` +
        `the pipeline needs '${desired.retention}' and '${desired.storage}' (delete the stream to let it be recreated)`,
    );
  }
}

async function streamExists(manager: JetStreamManager, name: string): Promise<boolean> {
  try {
    await manager.streams.info(name);
    return true;
  } catch {
    return false;
  }
}

/** Everything but name, retention and storage, which an update cannot change. */
function updatableFields(desired: DesiredStream): Partial<StreamUpdateConfig> {
  const updatable: Partial<StreamConfig> = { ...desired };
  delete updatable.name;
  delete updatable.retention;
  delete updatable.storage;
  return updatable;
}
