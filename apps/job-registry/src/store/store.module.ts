import { Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { Pool } from 'pg';
import { GatedPgPool } from '@svc/engines';
import { ExternalIdIssuer, SecretBox } from '@svc/crypto';
import { JsonLogger } from '@svc/logging';
import {
  AccessKeyRepository,
  AlertDeliveryRepository,
  AlertRepository,
  AlertTargetRepository,
  MetricsHistoryRepository,
  PipelineStateRepository,
  SeedPlanRepository,
  BatchHalvesRepository,
  ReplicationRepository,
  ServiceConfigurationRepository,
  TableStateRepository,
  ValidationRepository,
  WarehouseClaimRepository,
  ensureDatabase,
  issueMissingExternalIds,
  migrate,
} from '@svc/registry-store';
import { REGISTRY_CONFIG, type RegistryConfig } from '../config/registry-config';
import { resealSecrets } from './sealed-secrets';

export const REGISTRY_POOL = Symbol('REGISTRY_POOL');

/** Connections to the control database (one of them the scheduler's leader lock while it leads). */
const CONTROL_POOL_SIZE = 10;
const CONTROL_POOL_WAIT_MS = 30_000;

/**
 * Creates the control database if needed, opens the pool, brings the schema up to date, seals again any
 * secret in an older format or under a previous master key, and issues an ExternalId to any IAMRole replication
 * stored before they existed.
 */
async function openControlDatabase(config: RegistryConfig, logger: JsonLogger, box: SecretBox): Promise<Pool> {
  const { created } = await ensureDatabase(config.databaseUrl);
  // Keep-alive: a control database behind a network element that drops idle connections is noticed, not waited on.
  // Handed out through a gate (GatedPgPool): in line, a work waits CONTROL_POOL_WAIT_MS at most, then is told the control
  // database is busy; a transaction asking for a second connection is refused at once instead of waiting on itself.
  const pool = new GatedPgPool(
    { connectionString: config.databaseUrl, max: CONTROL_POOL_SIZE, connectionTimeoutMillis: 10_000, keepAlive: true, keepAliveInitialDelayMillis: 60_000 },
    { owner: 'Control database', waitMs: CONTROL_POOL_WAIT_MS, sizeSetting: `The registry keeps ${CONTROL_POOL_SIZE} connections to it.` },
  );
  // A connection dying must not crash the process, idle (the pool's event) or checked out (the client's,
  // which pg-pool does not listen to): its query fails, the client is discarded, the next one reconnects.
  pool.on('error', (error) => logger.warn('idle control database connection failed', { error }));
  pool.on('connect', (client) => {
    client.on('error', (error) => logger.warn('control database connection failed', { error }));
  });
  try {
    const { applied } = await migrate(pool);
    const resealed = (await resealSecrets(pool, box)).filter((column) => column.resealed > 0);
    const externalIdsIssued = await issueMissingExternalIds(pool, new ExternalIdIssuer(config.masterKey));
    if (externalIdsIssued > 0) {
      logger.warn('IAMRole replications got the ExternalId the service now assumes their role with: each role\'s trust policy must require it (Describe shows it)', { externalIdsIssued });
    }
    logger.info('control database ready', { created, migrationsApplied: applied, masterKeyId: box.currentKeyId, resealed });
    return pool;
  } catch (error) {
    await pool.end();
    throw error;
  }
}

@Injectable()
class PoolCloser implements OnApplicationShutdown {
  constructor(@Inject(REGISTRY_POOL) private readonly pool: Pool) {}

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}

/** The control database and its repositories, one instance each for the whole app. */
@Global()
@Module({
  providers: [
    { provide: REGISTRY_POOL, inject: [REGISTRY_CONFIG, JsonLogger, SecretBox], useFactory: openControlDatabase },
    {
      provide: SecretBox,
      inject: [REGISTRY_CONFIG],
      useFactory: (config: RegistryConfig) => new SecretBox(config.masterKey, config.previousMasterKeys),
    },
    { provide: ReplicationRepository, inject: [REGISTRY_POOL, SecretBox], useFactory: (pool: Pool, box: SecretBox) => new ReplicationRepository(pool, box) },
    { provide: AccessKeyRepository, inject: [REGISTRY_POOL, SecretBox], useFactory: (pool: Pool, box: SecretBox) => new AccessKeyRepository(pool, box) },
    { provide: ServiceConfigurationRepository, inject: [REGISTRY_POOL], useFactory: (pool: Pool) => new ServiceConfigurationRepository(pool) },
    { provide: TableStateRepository, inject: [REGISTRY_POOL], useFactory: (pool: Pool) => new TableStateRepository(pool) },
    { provide: AlertRepository, inject: [REGISTRY_POOL], useFactory: (pool: Pool) => new AlertRepository(pool) },
    { provide: AlertTargetRepository, inject: [REGISTRY_POOL, SecretBox], useFactory: (pool: Pool, box: SecretBox) => new AlertTargetRepository(pool, box) },
    {
      provide: AlertDeliveryRepository,
      inject: [REGISTRY_POOL, AlertTargetRepository],
      useFactory: (pool: Pool, targets: AlertTargetRepository) => new AlertDeliveryRepository(pool, targets),
    },
    { provide: PipelineStateRepository, inject: [REGISTRY_POOL], useFactory: (pool: Pool) => new PipelineStateRepository(pool) },
    { provide: SeedPlanRepository, inject: [REGISTRY_POOL], useFactory: (pool: Pool) => new SeedPlanRepository(pool) },
    { provide: BatchHalvesRepository, inject: [REGISTRY_POOL], useFactory: (pool: Pool) => new BatchHalvesRepository(pool) },
    { provide: MetricsHistoryRepository, inject: [REGISTRY_POOL], useFactory: (pool: Pool) => new MetricsHistoryRepository(pool) },
    { provide: WarehouseClaimRepository, inject: [REGISTRY_POOL], useFactory: (pool: Pool) => new WarehouseClaimRepository(pool) },
    { provide: ValidationRepository, inject: [REGISTRY_POOL], useFactory: (pool: Pool) => new ValidationRepository(pool) },
    PoolCloser,
  ],
  exports: [REGISTRY_POOL, ReplicationRepository, AccessKeyRepository, ServiceConfigurationRepository, TableStateRepository, AlertRepository, AlertTargetRepository, AlertDeliveryRepository, PipelineStateRepository, SeedPlanRepository, BatchHalvesRepository, MetricsHistoryRepository, WarehouseClaimRepository, ValidationRepository],
})
export class StoreModule {}
