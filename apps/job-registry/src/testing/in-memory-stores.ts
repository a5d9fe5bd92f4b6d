import { randomUUID } from 'node:crypto';
import {
  ERROR_DETAILS_PERMISSION,
  type AlertRecord,
  type ListedTable,
  type TableMetricsHistory,
  type ReplicationConfig,
  type ReplicationStatus,
  type ServiceConfiguration,
  type TableRef,
  type TableStatus,
} from '@svc/contracts';
import { chainOf, judgeChange, signs, standingOf, stoppedOf } from '@svc/registry-store';
import type {
  AccessKeyChange,
  AccessKeyChangeOutcome,
  AccessKeyListing,
  AccessKeySecret,
  AccessKeyStore,
  AlertStore,
  ActiveAlertCount,
  ResolvedCondition,
  DisabledBy,
  KeyActor,
  KeyLink,
  ChangeAuthor,
  HistoryEntry,
  HistoryQuery,
  MetricSample,
  MetricsHistoryStore,
  NewAccessKey,
  NewAlert,
  ReplicationScope,
  ReplicationChange,
  ReplicationListing,
  ScheduledValidationListing,
  ReplicationStore,
  ServiceConfigurationStore,
  StoredReplication,
  StoredTableStatus,
  TableStateStore,
  ClaimConflict,
  WarehouseClaimStore,
  WarehouseTableClaim,
} from '@svc/registry-store';
import type { CaptureCheck } from '@svc/engines';
import type { DatabaseTarget, PreparedStaging, ReachabilityProbe, ReachabilityTarget, StagingPreparationTarget } from '../replications/reachability-probe';
import type { ReplicationLifecycle } from '../replications/replication-lifecycle';

/** Test doubles of the registry-store repositories, with the same contracts and no database. */
export class InMemoryReplicationStore implements ReplicationStore {
  readonly rows = new Map<string, StoredReplication>();
  readonly historyRows: (HistoryEntry & { replicationId: string })[] = [];

  async insert(input: { status: ReplicationStatus; config: ReplicationConfig }, author: ChangeAuthor): Promise<StoredReplication> {
    const now = new Date();
    const stored: StoredReplication = {
      replicationId: randomUUID(),
      status: input.status,
      config: structuredClone(input.config),
      version: 1,
      lastError: null,
      lastErrorDetail: null,
      ownerAccessKeyId: author.accessKeyId,
      createdAt: now,
      updatedAt: now,
    };
    this.rows.set(stored.replicationId, stored);
    this.record(stored.replicationId, 1, ['*'], author);
    return structuredClone(stored);
  }

  async get(replicationId: string): Promise<StoredReplication | null> {
    const stored = this.rows.get(replicationId);
    return stored ? structuredClone(stored) : null;
  }

  async list(ownedBy?: string): Promise<ReplicationListing[]> {
    const rows = [...this.rows.values()].filter((stored) => ownedBy === undefined || stored.ownerAccessKeyId === ownedBy);
    return rows.map((stored) => ({
      replicationId: stored.replicationId,
      replicationName: stored.config.replicationName,
      status: stored.status,
      dataReplication: stored.config.dataReplication,
    }));
  }

  async withValidationSchedule(): Promise<ScheduledValidationListing[]> {
    return [...this.rows.values()].flatMap((stored) => {
      const schedule = stored.config.validationSchedule;
      if (schedule === undefined || schedule.repeatIntervalInMinutes === 0) return [];
      return [{ replicationId: stored.replicationId, status: stored.status, dataReplication: stored.config.dataReplication, schedule: structuredClone(schedule) }];
    });
  }

  async ownerOf(replicationId: string): Promise<string | null | undefined> {
    return this.rows.get(replicationId)?.ownerAccessKeyId;
  }

  async update(replicationId: string, expectedVersion: number, change: ReplicationChange, author: ChangeAuthor): Promise<StoredReplication | null> {
    const stored = this.rows.get(replicationId);
    if (!stored || stored.version !== expectedVersion) return null;
    const next: StoredReplication = {
      ...stored,
      config: structuredClone(change.config),
      status: change.status,
      lastError: change.lastError,
      lastErrorDetail: change.lastError === stored.lastError ? stored.lastErrorDetail : null,
      version: stored.version + 1,
      updatedAt: new Date(),
    };
    this.rows.set(replicationId, next);
    this.record(replicationId, next.version, change.changedFields, author);
    return structuredClone(next);
  }

  async setStatus(replicationId: string, status: ReplicationStatus, lastError: string | null, lastErrorDetail: string | null = null): Promise<boolean> {
    const stored = this.rows.get(replicationId);
    if (!stored) return false;
    this.rows.set(replicationId, { ...stored, status, lastError, lastErrorDetail, updatedAt: new Date() });
    return true;
  }

  async delete(replicationId: string): Promise<boolean> {
    return this.rows.delete(replicationId);
  }

  async history(replicationId: string): Promise<HistoryEntry[]> {
    return this.historyRows.filter((entry) => entry.replicationId === replicationId);
  }

  /** Puts a replication straight into the store, e.g. one in a state no operation produces yet. */
  seed(config: ReplicationConfig, overrides: Partial<StoredReplication> = {}): StoredReplication {
    const now = new Date();
    const stored: StoredReplication = {
      replicationId: randomUUID(),
      status: 'Running',
      config: structuredClone(config),
      version: 1,
      lastError: null,
      lastErrorDetail: null,
      ownerAccessKeyId: null,
      createdAt: now,
      updatedAt: now,
      ...overrides,
    };
    this.rows.set(stored.replicationId, stored);
    return structuredClone(stored);
  }

  private record(replicationId: string, version: number, changedFields: string[], author: ChangeAuthor): void {
    this.historyRows.push({ replicationId, version, changedAt: new Date(), ...author, changedFields, maskedValues: {} });
  }
}

export class InMemoryServiceConfigurationStore implements ServiceConfigurationStore {
  current: ServiceConfiguration = { serviceStopped: false, serializeReplications: false, parallelDatabaseReplicationsLimit: 0 };

  async get(): Promise<ServiceConfiguration> {
    return { ...this.current };
  }

  async update(patch: Partial<ServiceConfiguration>): Promise<ServiceConfiguration> {
    this.current = { ...this.current, ...patch };
    return { ...this.current };
  }
}

export class InMemoryTableStateStore implements TableStateStore {
  readonly tables = new Map<string, StoredTableStatus[]>();

  async listByReplication(replicationId: string): Promise<StoredTableStatus[]> {
    return this.tables.get(replicationId) ?? [];
  }

  async listAll(): Promise<Map<string, StoredTableStatus[]>> {
    return new Map(this.tables);
  }

  async errorCounts(): Promise<Map<string, { tableCount: number; tablesInError: number }>> {
    return new Map([...this.tables].map(([id, tables]) => [id, { tableCount: tables.length, tablesInError: tables.filter((table) => table.phase === 'Error').length }]));
  }

  /** Test setup: puts a table in any state (the real store has no such write; phases move through the pipeline). */
  put(replicationId: string, table: TableStatus): void {
    const others = (this.tables.get(replicationId) ?? []).filter((existing) => existing.name !== table.name);
    this.tables.set(replicationId, [...others, { ...table, ctTimeoutLevel: 0 }]);
  }
}

export class InMemoryAlertStore implements AlertStore {
  readonly alerts: AlertRecord[] = [];

  async listByReplication(replicationId: string): Promise<AlertRecord[]> {
    return this.alerts.filter((alert) => alert.replicationId === replicationId);
  }

  async activeCounts(): Promise<ActiveAlertCount[]> {
    const counts = new Map<string, ActiveAlertCount>();
    for (const { replicationId, kind, state } of this.alerts) {
      if (state !== 'Active') continue;
      const key = `${replicationId}/${kind}`;
      counts.set(key, { replicationId, kind, count: (counts.get(key)?.count ?? 0) + 1 });
    }
    return [...counts.values()];
  }

  async record(alert: NewAlert): Promise<AlertRecord> {
    const stored: AlertRecord = { ...alert, alertId: randomUUID(), createdAt: new Date().toISOString(), state: 'Active' };
    this.alerts.push(stored);
    return stored;
  }

  async acknowledge(replicationId: string, alertIds: readonly string[] | null, by: string, at: Date): Promise<number> {
    let count = 0;
    for (const alert of this.alerts) {
      if (alert.replicationId !== replicationId || alert.state !== 'Active' || (alertIds !== null && !alertIds.includes(alert.alertId))) continue;
      Object.assign(alert, { state: 'Acknowledged', acknowledgedAt: at.toISOString(), acknowledgedBy: by });
      count += 1;
    }
    return count;
  }

  async resolve(replicationId: string, conditions: readonly ResolvedCondition[], resolution: string, at: Date): Promise<number> {
    let count = 0;
    for (const alert of this.alerts) {
      if (alert.replicationId !== replicationId || alert.state === 'Resolved') continue;
      if (!conditions.some((condition) => condition.kind === alert.kind && condition.tableName === (alert.tableName ?? null))) continue;
      Object.assign(alert, { state: 'Resolved', resolvedAt: at.toISOString(), resolution });
      count += 1;
    }
    return count;
  }
}

/** Claims keyed by warehouse and table, held by one replication each; names and owners come from `replications`. */
export class InMemoryWarehouseClaimStore implements WarehouseClaimStore {
  readonly claims = new Map<string, WarehouseTableClaim & { replicationId: string }>();

  constructor(private readonly replications: InMemoryReplicationStore) {}

  async conflicts(warehouse: string, claims: readonly WarehouseTableClaim[], exceptReplicationId?: string): Promise<ClaimConflict[]> {
    return claims.flatMap((claim) => {
      const held = this.claims.get(`${warehouse}|${claim.warehouseTable}`);
      if (held === undefined || held.replicationId === exceptReplicationId) return [];
      const owner = this.replications.rows.get(held.replicationId);
      return [{ ...claim, replicationId: held.replicationId, replicationName: owner?.config.replicationName ?? '', ownerAccessKeyId: owner?.ownerAccessKeyId ?? null }];
    });
  }

  async claim(replicationId: string, warehouse: string, claims: readonly WarehouseTableClaim[]): Promise<ClaimConflict[]> {
    const wanted = new Set(claims.map((claim) => `${warehouse}|${claim.warehouseTable}`));
    for (const [key, held] of this.claims) if (held.replicationId === replicationId && !wanted.has(key)) this.claims.delete(key);
    for (const claim of claims) {
      const key = `${warehouse}|${claim.warehouseTable}`;
      if (!this.claims.has(key)) this.claims.set(key, { ...claim, replicationId });
    }
    return this.conflicts(warehouse, claims, replicationId);
  }
}

/** Keeps samples as recorded and answers with what a test put in `answer`; the SQL is tested against PostgreSQL. */
export class InMemoryMetricsHistoryStore implements MetricsHistoryStore {
  readonly samples: MetricSample[] = [];
  readonly queries: HistoryQuery[] = [];
  answer: TableMetricsHistory[] = [];

  async record(sample: MetricSample): Promise<void> {
    this.samples.push(sample);
  }

  async history(query: HistoryQuery): Promise<TableMetricsHistory[]> {
    this.queries.push(query);
    return this.answer;
  }

  async prune(): Promise<number> {
    return 0;
  }
}

type InMemoryKey = NewAccessKey & {
  disabled?: boolean;
  disabledBy?: DisabledBy | null;
  expiresAt?: Date | null;
  previous?: { secretKey: string; validUntil: Date };
  createdAt?: Date;
};

export class InMemoryAccessKeyStore implements AccessKeyStore {
  readonly keys = new Map<string, InMemoryKey>();
  private bootstrapKeyId: string | null = null;

  async upsertBootstrap(accessKeyId: string, secretKey: string): Promise<void> {
    const replaced = this.bootstrapKeyId;
    if (replaced !== null && replaced !== accessKeyId) {
      for (const [id, key] of this.keys) if (key.createdBy === replaced) this.keys.set(id, { ...key, createdBy: accessKeyId });
      this.keys.delete(replaced);
    }
    this.bootstrapKeyId = accessKeyId;
    this.keys.set(accessKeyId, { ...this.keys.get(accessKeyId), accessKeyId, secretKey, allowedOperations: ['*'], replicationScope: 'All', description: 'bootstrap', createdBy: null });
  }

  async create(key: NewAccessKey): Promise<boolean> {
    if (this.keys.has(key.accessKeyId)) return false;
    this.keys.set(key.accessKeyId, { ...key });
    return true;
  }

  async find(accessKeyId: string, options: { withStopped?: boolean } = {}): Promise<AccessKeySecret | null> {
    const key = this.keys.get(accessKeyId);
    if (!key) return null;
    const stopped = stoppedOf(this.standingOf(accessKeyId));
    if (stopped !== undefined && options.withStopped !== true) return null;
    const previous = key.previous && key.previous.validUntil > new Date() ? key.previous.secretKey : undefined;
    return {
      secretKey: key.secretKey,
      allowedOperations: [...key.allowedOperations],
      replicationScope: key.replicationScope,
      ...(previous !== undefined && { previousSecretKey: previous }),
      ...(stopped !== undefined && { stopped }),
    };
  }

  async scopeOf(accessKeyId: string): Promise<ReplicationScope | null> {
    return this.usable(accessKeyId)?.replicationScope ?? null;
  }

  async mayReadErrorDetails(accessKeyId: string): Promise<boolean> {
    const allowed = this.usable(accessKeyId)?.allowedOperations ?? [];
    return allowed.includes('*') || allowed.includes(ERROR_DETAILS_PERMISSION);
  }

  async list(): Promise<AccessKeyListing[]> {
    return [...this.keys.values()].map((key) => this.listingOf(key));
  }

  async get(accessKeyId: string): Promise<AccessKeyListing | null> {
    const key = this.keys.get(accessKeyId);
    return key ? this.listingOf(key) : null;
  }

  async change(accessKeyId: string, change: AccessKeyChange, actor: KeyActor): Promise<AccessKeyChangeOutcome> {
    const verdict = judgeChange(this.links(), accessKeyId, change, actor, new Date());
    if (verdict.verdict === 'missing') return 'missing';
    if (verdict.verdict === 'refused') return verdict.refusal;
    const write = verdict.write;
    if (write.kind === 'delete') for (const id of write.accessKeyIds) this.keys.delete(id);
    else if (write.kind === 'status') this.update(accessKeyId, (key) => ({ ...key, disabled: write.disabled, disabledBy: write.disabledBy }));
    else this.update(accessKeyId, (key) => ({ ...key, expiresAt: write.expiresAt }));
    return 'changed';
  }

  async rotate(accessKeyId: string, newSecretKey: string, previousValidUntil: Date): Promise<boolean> {
    return this.update(accessKeyId, (key) => ({ ...key, secretKey: newSecretKey, previous: { secretKey: key.secretKey, validUntil: previousValidUntil } }));
  }

  private usable(accessKeyId: string): InMemoryKey | undefined {
    const key = this.keys.get(accessKeyId);
    return key && signs(this.standingOf(accessKeyId), new Date()) ? key : undefined;
  }

  private links(): Map<string, KeyLink> {
    return new Map([...this.keys.values()].map((key) => [key.accessKeyId, linkOf(key)]));
  }

  private standingOf(accessKeyId: string): AccessKeyListing['effective'] {
    const links = this.links();
    return standingOf(chainOf(accessKeyId, (id) => links.get(id)));
  }

  private listingOf(key: InMemoryKey): AccessKeyListing {
    return {
      accessKeyId: key.accessKeyId,
      allowedOperations: [...key.allowedOperations],
      replicationScope: key.replicationScope,
      description: key.description,
      bootstrap: key.accessKeyId === this.bootstrapKeyId,
      disabled: key.disabled === true,
      disabledBy: linkOf(key).disabledBy,
      createdAt: key.createdAt ?? new Date(0),
      createdBy: key.createdBy ?? null,
      expiresAt: key.expiresAt ?? null,
      effective: this.standingOf(key.accessKeyId),
      previousSecretValidUntil: key.previous && key.previous.validUntil > new Date() ? key.previous.validUntil : null,
    };
  }

  private update(accessKeyId: string, update: (key: InMemoryKey) => InMemoryKey): boolean {
    const key = this.keys.get(accessKeyId);
    if (!key) return false;
    this.keys.set(accessKeyId, update(key));
    return true;
  }
}

function linkOf(key: InMemoryKey): KeyLink {
  const disabled = key.disabled === true;
  return {
    accessKeyId: key.accessKeyId,
    createdBy: key.createdBy ?? null,
    replicationScope: key.replicationScope,
    disabled,
    disabledBy: disabled ? (key.disabledBy ?? null) : null,
    expiresAt: key.expiresAt ?? null,
  };
}

/** Records what it was asked to check and answers what the test decided. */
export class ScriptedReachabilityProbe implements ReachabilityProbe {
  readonly targets: ReachabilityTarget[] = [];
  answer: (target: ReachabilityTarget) => string[] = () => [];

  /** The source's tables, as listSourceTables answers them (none unless a test says so). */
  sourceTables: ListedTable[] = [];

  async check(target: ReachabilityTarget): Promise<string[]> {
    this.targets.push(structuredClone(target));
    return this.answer(target);
  }

  async listSourceTables(): Promise<ListedTable[]> {
    return structuredClone(this.sourceTables);
  }

  /** What prepareStaging answers, and the targets it was asked about. */
  preparation: PreparedStaging = { problems: [], note: '' };
  readonly preparedTargets: StagingPreparationTarget[] = [];

  async prepareStaging(target: StagingPreparationTarget): Promise<PreparedStaging> {
    this.preparedTargets.push(structuredClone(target));
    return structuredClone(this.preparation);
  }

  /** What checkCapture answers, and the tables it was asked about. */
  capture: CaptureCheck = { problems: [], note: '' };
  readonly captureChecks: TableRef[][] = [];

  async checkCapture(_source: DatabaseTarget, tables: readonly TableRef[]): Promise<CaptureCheck> {
    this.captureChecks.push(structuredClone([...tables]));
    return structuredClone(this.capture);
  }
}

/** Records what the API asked of the running job; `remove` deletes from the store unless told to fail. */
export class RecordingLifecycle implements ReplicationLifecycle {
  readonly calls: { kind: 'altered' | 'resumed' | 'remove'; replicationId: string; changedFields?: string[] }[] = [];
  failRemovalWith: Error | null = null;

  constructor(private readonly replications: ReplicationStore) {}

  async altered(replicationId: string, _before: ReplicationConfig, _after: ReplicationConfig, changedFields: string[]): Promise<void> {
    this.calls.push({ kind: 'altered', replicationId, changedFields });
  }

  async resumed(replicationId: string): Promise<void> {
    this.calls.push({ kind: 'resumed', replicationId });
  }

  async remove(replicationId: string): Promise<void> {
    this.calls.push({ kind: 'remove', replicationId });
    if (this.failRemovalWith) throw this.failRemovalWith;
    await this.replications.delete(replicationId);
  }
}
