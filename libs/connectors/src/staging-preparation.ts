import { withinDeadline, type DialPolicy, type StagingPreparationField } from '@svc/engines';
import { databaseAccessOf } from './engine';
import { REACHABILITY_FIELDS, type DatabaseTarget } from './reachability';

export const STAGING_PREPARATION_FIELDS: Readonly<Record<StagingPreparationField, string>> = {
  sourceConnectionString: REACHABILITY_FIELDS.source,
  stagingConnectionString: REACHABILITY_FIELDS.staging,
  replicateCompatibilityLevel: 'Staging\\ReplicateCompatibilityLevel',
};

export interface StagingPreparationTarget {
  source: DatabaseTarget;
  staging: DatabaseTarget;
  replicateCompatibilityLevel: boolean;
}

/** Field messages in the request's terms (empty when the staging database is ready), and Create's Note. */
export interface PreparedStaging {
  problems: string[];
  note: string;
}

/**
 * Readies the staging database as its engine needs before a replication is stored (DatabaseAccess.prepareStaging):
 * for SQL Server the source's compatibility level and its SQL logins. An engine that needs nothing answers at once.
 */
export async function prepareStaging(target: StagingPreparationTarget, timeoutMs: number, dial?: DialPolicy): Promise<PreparedStaging> {
  const access = databaseAccessOf(target.staging.connectionString);
  if (!access?.prepareStaging) return { problems: [], note: '' };
  const staging = `{${REACHABILITY_FIELDS.staging}}`;
  try {
    const outcome = await withinDeadline(
      access.prepareStaging({
        source: { connectionString: target.source.connectionString, encrypt: target.source.encryptDataInTransit },
        staging: { connectionString: target.staging.connectionString, encrypt: target.staging.encryptDataInTransit },
        replicateCompatibilityLevel: target.replicateCompatibilityLevel,
        timeoutMs,
        ...(dial && { dial }),
      }),
      timeoutMs,
    );
    if (!outcome.settled) return { problems: [`${staging}: cannot prepare the staging database: timed out after ${Math.round(timeoutMs / 1000)} s`], note: '' };
    const { problems, note } = outcome.value;
    return { problems: problems.map((problem) => `{${STAGING_PREPARATION_FIELDS[problem.field]}}: ${problem.reason}`), note };
  } catch {
    // The engine maps its failures to reasons; anything else is a defect whose details must not leak.
    return { problems: [`${staging}: cannot prepare the staging database: unexpected error`], note: '' };
  }
}
