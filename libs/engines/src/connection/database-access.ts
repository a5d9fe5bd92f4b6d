import type { ListedTable, RetentionPeriod, TableRef } from '@svc/contracts';
import type { FailureContext } from './connection-failure';
import type { ProbeOptions } from './connection-options';
import type { DialPolicy } from './dial-guard';

/**
 * What Create and Alter need of an engine for a Source or Staging connection string, before any pipeline
 * runs: whose grammar the string is, which database it names, whether it answers, and its tables.
 */
export interface DatabaseAccess {
  /** True when the string is this engine's connection string (its grammar parses it). */
  recognizes(connectionString: string): boolean;
  /** The database the string names, or null (unnamed or unparsable). */
  databaseName(connectionString: string): string | null;
  /** `engine://host:port/database`, lower case: two strings naming the same database share it. Null when unparsable. */
  databaseIdentity(connectionString: string): string | null;
  /**
   * What the engine's driver connects to, read off the driver config it builds: the host policy checks this, so that
   * it checks what is dialled. Throws ConnectionStringError (UnsafeHostError for a host no driver may dial).
   */
  endpoint(connectionString: string): DatabaseEndpoint;
  /** Connects and runs a trivial query: null on success, else a short reason that quotes nothing of the string. */
  probe(connectionString: string, options: ProbeOptions): Promise<string | null>;
  /** The user tables with their primary-key columns; throws when the database cannot be read. */
  listTables(connectionString: string, options: ProbeOptions): Promise<ListedTable[]>;
  /**
   * Create's check that the changes of these (keyed, replicated) tables can be captured with this login: problems
   * refuse the Create (reasons for Source.ConnectionString), the note goes into its Note. Absent: nothing to check.
   * `retention` is the replication's ChangeTrackingRetentionPeriod, for an engine whose change history is the server's
   * (MySQL's binary log): it checks, or raises where the login may, how long the server keeps it.
   */
  checkCapture?(connectionString: string, options: ProbeOptions, tables: readonly TableRef[], retention?: RetentionPeriod): Promise<CaptureCheck>;
  /** How this engine's driver words a failed connection attempt; undefined for an error of another driver. */
  failureReason(error: unknown, context: FailureContext): string | undefined;
  /**
   * Readies a staging database of this engine for a replication before it is stored (Create, and an Alter of
   * the staging database): what the engine's staging needs beyond tables, e.g. SQL Server's compatibility level
   * and replicated logins. Absent for an engine that needs nothing.
   */
  prepareStaging?(request: StagingPreparationRequest): Promise<StagingPreparation>;
}

/** Where a driver connects: the host as the driver is given it (driverHostOf), its port and the database. */
export interface DatabaseEndpoint {
  host: string;
  /** Undefined when the driver finds it at connect time (a SQL Server named instance, through the SQL Browser). */
  port: number | undefined;
  database: string;
}

export interface StagingPreparationRequest {
  source: { connectionString: string; encrypt: boolean };
  staging: { connectionString: string; encrypt: boolean };
  /** Staging.ReplicateCompatibilityLevel */
  replicateCompatibilityLevel: boolean;
  timeoutMs: number;
  /** The registry's dial policy (ProbeOptions.dial); DEFAULT_DIAL_POLICY when absent. */
  dial?: DialPolicy;
}

/** Which request field a problem of preparing the staging database belongs to. */
export type StagingPreparationField = 'sourceConnectionString' | 'stagingConnectionString' | 'replicateCompatibilityLevel';

/** What Create learnt about capturing a source's changes (DatabaseAccess.checkCapture). */
export interface CaptureCheck {
  /** Why the source's changes cannot be captured, each naming the tables and the fix; empty when they can. */
  problems: string[];
  /** How they are captured, for Create's Note; '' when there is nothing to say. */
  note: string;
}

export interface StagingPreparation {
  /** Why the replication cannot be stored as requested, each with its field; empty when the staging database is ready. */
  problems: { field: StagingPreparationField; reason: string }[];
  /** Create's Note (seed §4.1): the engine's words about what it did, or ''. */
  note: string;
}
