import { displayNameOf, engineNamed, sourceEngineOf } from '@svc/connectors';
import type { ReplicationConfig } from '@svc/contracts';

/**
 * The staging database is a replica of the source (DESIGN §1), so both must be the same engine, and that engine must be
 * able to be a staging database. A source engine of the list that cannot be one stages in a database of an engine that
 * can: its tables are declared there from their portable types, as a warehouse's are.
 */
export function engineMismatches(config: Pick<ReplicationConfig, 'source' | 'staging'>, stagingLabel = '{Staging\\ConnectionString}'): string[] {
  const sourceEngine = sourceEngineOf(config.source.connectionString);
  const stagingEngine = sourceEngineOf(config.staging.connectionString);
  if (!sourceEngine || !stagingEngine) return [];
  const playsStaging = (engine: typeof sourceEngine) => (engineNamed(engine).roles as readonly string[]).includes('staging');
  if (!playsStaging(stagingEngine)) return [`${stagingLabel}: ${displayNameOf(stagingEngine)} cannot be a staging database yet: name a database of an engine that can (PostgreSQL)`];
  if (sourceEngine === stagingEngine || !playsStaging(sourceEngine)) return [];
  return [`${stagingLabel}: the staging database must use the source's engine (${displayNameOf(sourceEngine)}), not ${displayNameOf(stagingEngine)}`];
}
