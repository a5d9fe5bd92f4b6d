export {
  AccessKeyRepository,
  BOOTSTRAP_KEY_DESCRIPTION,
  stoppedOf,
  type AccessKeyChangeOutcome,
  type AccessKeyListing, type AccessKeySecret, type AccessKeyStore, type NewAccessKey, type ReplicationScope } from './access-key-repository';
export { judgeChange, type AccessKeyChange, type AccessKeyChangeRefusal, type KeyActor } from './key-change';
export { chainOf, signs, standingOf, type DisabledBy, type KeyLink, type KeyStanding, type KeyWidth } from './key-chain';
export { AlertRepository, type ActiveAlertCount, type AlertStore, type NewAlert, type ResolvedCondition } from './alert-repository';
export {
  AlertDeliveryRepository,
  deliveriesOfAlerts,
  type AlertDeliveryStore,
  type DeliveryOutcome,
  type DueDelivery,
} from './alert-delivery-repository';
export {
  AlertTargetRepository,
  originOf,
  type AlertTarget,
  type AlertTargetListing,
  type AlertTargetSpec,
  type AlertTargetStore,
  type PublicTargetSettings,
} from './alert-target-repository';
export { changedConfigPaths, configLeaves } from './config-paths';
export { maskConnectionString } from './connection-string-mask';
export { issueMissingExternalIds } from './external-id-backfill';
export { DatabaseUrlError, ensureDatabase } from './ensure-database';
export { MetricsHistoryRepository, type HistoryQuery, type MetricSample, type MetricsHistoryStore } from './metrics-history-repository';
export { migrate, type MigrationReport } from './migrate';
export { BatchHalvesRepository, type BatchHalfKey } from './batch-halves-repository';
export { SeedPlanRepository, type ChunkRecorded, type ChunkWork, type SeedPlan, type SeedPlanState } from './seed-plan-repository';
export { MIGRATIONS, type Migration } from './migrations';
export {
  ReplicationRepository,
  type ChangeAuthor,
  type HistoryEntry,
  type ReplicationChange,
  type ReplicationListing,
  type ScheduledValidationListing,
  type ReplicationStore,
  type StoredReplication,
} from './replication-repository';
export { maskConfigSecrets, splitSecrets, type PublicConfig } from './secret-fields';
export { ResealError, resealStoredSecrets, type ResealedColumn, type ResealOptions } from './reseal-secrets';
export { ServiceConfigurationRepository, type ServiceConfigurationStore } from './service-configuration-repository';
export { TableStateRepository, type StoredTableStatus, type TableStateStore } from './table-state-repository';
export {
  PipelineStateRepository,
  type CompletedCycle,
  type DiscoveredTable,
  type ReleasedWork,
  type ReportingWork,
  type SchedulableReplication,
  type SeedPlanSummary,
  type TableRuntimeState,
  type UnpublishedWork,
  type WorkFailureEvent,
  type WorkKind,
} from './pipeline-state-repository';
export { WarehouseClaimRepository, type ClaimConflict, type WarehouseClaimStore, type WarehouseTableClaim } from './warehouse-claim-repository';
export {
  ValidationRepository,
  type DispatchedValidation,
  type LastValidation,
  type NewValidationTable,
  type ValidationOutcome,
  type ValidationProgressUpdate,
  type ValidationStore,
} from './validation-repository';
