import { displayNameOf, sourceEngineOf } from '@svc/connectors';
import type { ReplicationConfig } from '@svc/contracts';

/** The staging database is a replica of the source (DESIGN §1), so both must be the same engine. */
export function engineMismatches(config: Pick<ReplicationConfig, 'source' | 'staging'>, stagingLabel = '{Staging\\ConnectionString}'): string[] {
  const sourceEngine = sourceEngineOf(config.source.connectionString);
  const stagingEngine = sourceEngineOf(config.staging.connectionString);
  if (!sourceEngine || !stagingEngine || sourceEngine === stagingEngine) return [];
  return [`${stagingLabel}: the staging database must use the source's engine (${displayNameOf(sourceEngine)}), not ${displayNameOf(stagingEngine)}`];
}
