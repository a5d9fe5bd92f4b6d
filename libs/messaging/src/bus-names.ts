import { INSTALLATION_SETTING, PipelineStreams, ReplayRecords, installationProblem } from '@svc/contracts';

/** The first token of every subject of the contracts (`svc.…`). */
const LOGICAL_ROOT = 'svc';


/**
 * The names an installation uses on NATS (docs/PIPELINE.md, "Installations on one NATS"). The code speaks the contracts'
 * logical names (`svc.pipeline.v1.batch.extracted`, `SVC_PIPELINE_V1`); they become this installation's where they meet
 * NATS. The default installation's names are the logical ones, so an existing deployment keeps its streams and
 * consumers. Another installation's first subject token is `svc-<name>` (no wildcard of the default's `svc.…` matches
 * it, nor one of another name's), its streams and buckets `SVC_<NAME>_…`, its reply inboxes `_INBOX.svc-<name>-<role>`.
 */
export class BusNames {
  readonly workStream: string;
  readonly rowsStream: string;
  readonly replayBucket: string;
  readonly replayStream: string;
  readonly replaySubjectPrefix: string;
  private readonly root: string;

  constructor(readonly installation: string) {
    const problem = installationProblem(installation);
    if (problem !== null) throw new Error(problem);
    this.root = installation === '' ? LOGICAL_ROOT : `${LOGICAL_ROOT}-${installation}`;
    this.workStream = this.stream(PipelineStreams.work.name);
    this.rowsStream = this.stream(PipelineStreams.rows.name);
    this.replayBucket = this.stream(ReplayRecords.bucket);
    this.replayStream = `KV_${this.replayBucket}`;
    this.replaySubjectPrefix = `$KV.${this.replayBucket}`;
  }

  /** A logical subject or subject pattern of the contracts (`svc.…`) on this installation's bus. */
  subject(logical: string): string {
    if (!logical.startsWith(`${LOGICAL_ROOT}.`)) throw new Error(`'${logical}' is not a subject of the contracts (${LOGICAL_ROOT}.…)`);
    return this.root === LOGICAL_ROOT ? logical : `${this.root}${logical.slice(LOGICAL_ROOT.length)}`;
  }

  /** A logical stream or bucket name (`SVC_…`) of this installation. */
  stream(logical: string): string {
    const prefix = `${LOGICAL_ROOT.toUpperCase()}_`;
    if (!logical.startsWith(prefix)) throw new Error(`'${logical}' is not a stream of the contracts (${prefix}…)`);
    return this.installation === '' ? logical : `${prefix}${this.installation.toUpperCase()}_${logical.slice(prefix.length)}`;
  }

  /**
   * A permission written in logical names (bus roles: subjects, patterns, JetStream API subjects naming streams and
   * consumer filters, inboxes) as it applies to this installation, token by token.
   */
  permission(logical: string): string {
    const tokens = logical.split('.');
    if (tokens[0] === '_INBOX' && tokens[1] !== undefined) return [this.inboxPrefix(tokens[1]), ...tokens.slice(2)].join('.');
    const renamed: Record<string, string> = {
      [LOGICAL_ROOT]: this.root,
      [PipelineStreams.work.name]: this.workStream,
      [PipelineStreams.rows.name]: this.rowsStream,
      [ReplayRecords.bucket]: this.replayBucket,
      [ReplayRecords.stream]: this.replayStream,
    };
    return tokens.map((token) => renamed[token] ?? token).join('.');
  }

  /** Where replies to a role's requests come: a role may read only its own (bus roles), and only its installation's. */
  inboxPrefix(role: string): string {
    return this.installation === '' ? `_INBOX.${role}` : `_INBOX.${this.root}-${role}`;
  }
}

let processNames: BusNames | undefined;

/** This process's installation's names (SVC_INSTALLATION, read once; empty or unset: the default installation). */
export function busNames(): BusNames {
  processNames ??= new BusNames(process.env[INSTALLATION_SETTING] ?? '');
  return processNames;
}
