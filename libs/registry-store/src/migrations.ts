/**
 * Ordered schema migrations of the control database. Append only: an applied migration is never edited,
 * a change is a new entry with the next version.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'replications, history, access keys, service configuration, table states, alerts',
    sql: `
CREATE TABLE replications (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  -- The replication's own state; Describe/List combine it with the service-wide stop flag.
  status text NOT NULL CHECK (status IN ('Running', 'Stopped', 'Failed', 'Deleting')),
  -- The configuration without its secret fields.
  config jsonb NOT NULL,
  -- SecretBox-sealed JSON of the secret fields: connection strings, warehouse secret key and password.
  secrets bytea NOT NULL,
  config_version integer NOT NULL DEFAULT 1 CHECK (config_version >= 1),
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE replication_history (
  replication_id uuid NOT NULL REFERENCES replications (id) ON DELETE CASCADE,
  version integer NOT NULL,
  changed_at timestamptz NOT NULL DEFAULT now(),
  request_id text NOT NULL,
  access_key_id text NOT NULL,
  changed_fields text[] NOT NULL,
  -- New values of the changed fields with every secret masked.
  masked_values jsonb NOT NULL,
  PRIMARY KEY (replication_id, version)
);

CREATE TABLE access_keys (
  access_key_id text PRIMARY KEY,
  secret bytea NOT NULL,
  allowed_operations text[] NOT NULL CHECK (cardinality(allowed_operations) > 0),
  description text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now()
);

-- One row. parallel_database_replications_limit 0 means no limit; serialize_replications = true
-- runs one replication at a time whatever the limit says.
CREATE TABLE service_configuration (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  service_stopped boolean NOT NULL DEFAULT false,
  serialize_replications boolean NOT NULL DEFAULT false,
  parallel_database_replications_limit integer NOT NULL DEFAULT 0 CHECK (parallel_database_replications_limit >= 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO service_configuration DEFAULT VALUES;

CREATE TABLE table_states (
  replication_id uuid NOT NULL REFERENCES replications (id) ON DELETE CASCADE,
  table_name text NOT NULL,
  phase text NOT NULL CHECK (phase IN ('Pending', 'Seeding', 'Tracking', 'Reseeding', 'Untracked', 'Error')),
  rows_seeded bigint NOT NULL DEFAULT 0,
  rows_estimated bigint NOT NULL DEFAULT 0,
  last_version text,
  lag_seconds double precision,
  last_error text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (replication_id, table_name)
);

CREATE TABLE alerts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  replication_id uuid NOT NULL REFERENCES replications (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('SchemaChange', 'Reseed', 'Failure', 'RetentionDanger')),
  message text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX alerts_by_replication ON alerts (replication_id, created_at);
`,
  },
  {
    version: 2,
    name: 'pipeline runtime state of tables',
    sql: `
ALTER TABLE replications ADD COLUMN discovered_config_version integer;

ALTER TABLE table_states
  -- False for tables only seeded (no primary key, or reseeded on a schedule without tracking).
  ADD COLUMN tracked boolean NOT NULL DEFAULT true,
  -- The unit of work in flight for the table (at most one); completions of any other work are ignored.
  ADD COLUMN in_flight_work_id uuid,
  ADD COLUMN in_flight_kind text CHECK (in_flight_kind IN ('seed', 'changes')),
  ADD COLUMN in_flight_since timestamptz,
  ADD COLUMN last_seeded_at timestamptz,
  ADD COLUMN last_cycle_at timestamptz,
  -- Rows the last change cycle carried (0: the source was idle).
  ADD COLUMN last_cycle_rows bigint NOT NULL DEFAULT 0;
`,
  },
  {
    version: 3,
    name: 'operations: work epochs, change-cycle timeouts, retry backoff, retention watch',
    sql: `
ALTER TABLE table_states
  -- Fencing token: each unit of work claimed for the table gets the next epoch; staging and warehouse
  -- refuse a batch whose epoch is below the highest they have applied (a cancelled unit still running).
  ADD COLUMN work_epoch bigint NOT NULL DEFAULT 0,
  -- CtProcessTimeoutInMinutes doubling: 0 = configured, 1 = double, 2 = four times, 3 = no limit.
  ADD COLUMN ct_timeout_level integer NOT NULL DEFAULT 0 CHECK (ct_timeout_level BETWEEN 0 AND 3),
  -- Retryable failures in a row, and when the table may be tried again (capped exponential backoff).
  ADD COLUMN failure_count integer NOT NULL DEFAULT 0,
  ADD COLUMN retry_at timestamptz,
  -- When the watermark was last confirmed current, and when a RetentionDanger alert was raised for it.
  ADD COLUMN watermark_at timestamptz,
  ADD COLUMN retention_alerted_at timestamptz;
`,
  },
  {
    version: 4,
    name: 'pipeline: outbox of claimed work, last progress of work in flight',
    sql: `
ALTER TABLE table_states
  -- The work message of the claim, stored in the claiming transaction (an outbox): a scheduler that dies
  -- before publishing it leaves a claim the next leader publishes again (JetStream de-duplicates by work id).
  ADD COLUMN in_flight_request jsonb,
  -- Set once JetStream confirmed the work message; NULL with work in flight: it may never have been sent.
  ADD COLUMN in_flight_published_at timestamptz,
  -- Last sign of life of the work in flight: queued, a heartbeat of a worker handling it, a seed part loaded.
  ADD COLUMN last_progress_at timestamptz;
-- Claims made before this migration have no stored message: they count as published.
UPDATE table_states SET in_flight_published_at = in_flight_since, last_progress_at = updated_at WHERE in_flight_work_id IS NOT NULL;
`,
  },
  {
    version: 5,
    name: 'metrics history: one sample a minute per table, kept 7 days',
    sql: `
CREATE TABLE table_metric_samples (
  replication_id uuid NOT NULL REFERENCES replications (id) ON DELETE CASCADE,
  table_name text NOT NULL,
  -- The minute the sample covers, [minute, minute + 1 min).
  minute timestamptz NOT NULL,
  -- Change cycles completed in the minute, and rows applied to the warehouse (change and seed rows).
  cycles integer NOT NULL DEFAULT 0,
  rows_applied bigint NOT NULL DEFAULT 0,
  -- Lag of the minute's last cycle and its highest; NULL without a cycle.
  lag_seconds_last double precision,
  lag_seconds_max double precision,
  -- Summed and longest duration of the minute's cycles whose start was known (timed_cycles of them).
  cycle_ms_total bigint NOT NULL DEFAULT 0,
  timed_cycles integer NOT NULL DEFAULT 0,
  cycle_ms_max bigint,
  PRIMARY KEY (replication_id, table_name, minute)
);
CREATE INDEX table_metric_samples_minute ON table_metric_samples (minute);
`,
  },
  {
    version: 6,
    name: 'access keys: the bootstrap key is marked, so a new SVC_BOOTSTRAP_ACCESS_KEY_ID replaces it',
    sql: `
ALTER TABLE access_keys ADD COLUMN bootstrap boolean NOT NULL DEFAULT false;
-- Before this column, the bootstrap key was told apart by the description the registry gave it.
UPDATE access_keys SET bootstrap = true
 WHERE description = 'bootstrap key from SVC_BOOTSTRAP_ACCESS_KEY_ID' AND allowed_operations = '{*}';
`,
  },
  {
    version: 7,
    name: 'replications owned by the key that created them; keys limited to their own replications unless granted all',
    sql: `
ALTER TABLE replications ADD COLUMN owner_access_key_id text;
-- Existing replications belong to the key that created them (the first history entry names it).
UPDATE replications r SET owner_access_key_id = h.access_key_id
  FROM replication_history h WHERE h.replication_id = r.id AND h.version = 1;
CREATE INDEX replications_by_owner ON replications (owner_access_key_id);
-- 'Own': the key's own replications only; 'All': every replication and the service-wide operations.
ALTER TABLE access_keys ADD COLUMN replication_scope text NOT NULL DEFAULT 'Own' CHECK (replication_scope IN ('Own', 'All'));
-- Keys allowed every operation were the administrators: they keep every replication.
UPDATE access_keys SET replication_scope = 'All' WHERE '*' = ANY (allowed_operations);
`,
  },
  {
    version: 8,
    name: 'access key lifecycle: disabled, expiry, a rotated secret kept until its overlap ends',
    sql: `
ALTER TABLE access_keys
  ADD COLUMN disabled boolean NOT NULL DEFAULT false,
  ADD COLUMN expires_at timestamptz,
  -- After a rotation the earlier secret still signs until previous_valid_until (sealed like secret).
  ADD COLUMN previous_secret bytea,
  ADD COLUMN previous_valid_until timestamptz;
`,
  },
  {
    version: 9,
    name: 'warehouse tables claimed by one replication each: two replications never write one warehouse table',
    sql: `
CREATE TABLE warehouse_table_claims (
  -- host:port/database/schema of the warehouse, lower case, loopback names folded (warehouseIdentity).
  warehouse text NOT NULL,
  warehouse_table text NOT NULL,
  replication_id uuid NOT NULL REFERENCES replications (id) ON DELETE CASCADE,
  source_table text NOT NULL,
  claimed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (warehouse, warehouse_table)
);
CREATE INDEX warehouse_table_claims_by_replication ON warehouse_table_claims (replication_id);
-- Every replication discovers its tables again, claiming them; where two already wrote one table, the first to be
-- discovered keeps it and the other is told by a Failure alert.
UPDATE replications SET discovered_config_version = NULL;
`,
  },
  {
    version: 10,
    name: 'access keys record the key that created them over the API, which limits what an Own key manages',
    sql: `
-- NULL for the bootstrap key and keys an operator made on the bus. No foreign key: a key outlives its creator.
ALTER TABLE access_keys ADD COLUMN created_by_access_key_id text;
`,
  },
  {
    version: 11,
    name: 'error details: what a server said of the last error, apart from its classified reason',
    sql: `
-- last_error holds the classified reason (no server's words, no row values); the detail, redacted of credentials
-- and bounded, is shown only to keys allowed DescribeReplicationErrorDetails.
ALTER TABLE replications ADD COLUMN last_error_detail text;
ALTER TABLE table_states ADD COLUMN last_error_detail text;
-- Errors recorded before carry a driver's words: they become the detail, and the reason says so.
UPDATE replications SET last_error_detail = left(last_error, 1000), last_error = 'an error recorded before reasons were classified (see LastErrorDetail)'
 WHERE last_error IS NOT NULL;
UPDATE table_states SET last_error_detail = left(last_error, 1000), last_error = 'an error recorded before reasons were classified (see LastErrorDetail)'
 WHERE last_error IS NOT NULL;
`,
  },
  {
    version: 12,
    name: 'validations: a replication compared with its source, table by table',
    sql: `
CREATE TABLE validations (
  validation_id uuid PRIMARY KEY,
  replication_id uuid NOT NULL REFERENCES replications (id) ON DELETE CASCADE,
  requested_at timestamptz NOT NULL,
  scheduled boolean NOT NULL DEFAULT false
);
CREATE INDEX validations_by_replication ON validations (replication_id, requested_at DESC);
CREATE TABLE validation_tables (
  validation_id uuid NOT NULL REFERENCES validations (validation_id) ON DELETE CASCADE,
  replication_id uuid NOT NULL,
  table_name text NOT NULL,
  state text NOT NULL CHECK (state IN ('Pending', 'Running', 'Validated', 'Mismatched', 'Repairing', 'Repaired', 'Failed', 'Skipped')),
  reason text,
  -- RepairReplication asked for it: the comparison's differing keys are applied again, then compared again.
  repair boolean NOT NULL DEFAULT false,
  -- The dispatch running it: a report of another (an earlier dispatch, redelivered late) changes nothing.
  work_id uuid,
  dispatched_at timestamptz,
  last_progress_at timestamptz,
  dispatches integer NOT NULL DEFAULT 0,
  phase text,
  source_version text,
  rows_compared bigint NOT NULL DEFAULT 0,
  rows_estimated bigint,
  missing_keys bigint NOT NULL DEFAULT 0,
  extra_keys bigint NOT NULL DEFAULT 0,
  different_keys bigint NOT NULL DEFAULT 0,
  unsettled_keys bigint NOT NULL DEFAULT 0,
  -- The first differing keys: [{"key": {"column": "text"}, "difference": "missing"}]. Keys only, never other values.
  differing_keys jsonb NOT NULL DEFAULT '[]',
  started_at timestamptz,
  ended_at timestamptz,
  PRIMARY KEY (validation_id, table_name)
);
CREATE INDEX validation_tables_open ON validation_tables (replication_id) WHERE state IN ('Pending', 'Running', 'Repairing');
-- A validation that found differences raises a Validation alert.
ALTER TABLE alerts DROP CONSTRAINT IF EXISTS alerts_kind_check;
ALTER TABLE alerts ADD CONSTRAINT alerts_kind_check CHECK (kind IN ('SchemaChange', 'Reseed', 'Failure', 'RetentionDanger', 'Validation'));
`,
  },
  {
    version: 13,
    name: 'validation_tables.revalidate_after: a table repaired by a reseed is validated again once the reseed has completed',
    sql: `
ALTER TABLE validation_tables ADD COLUMN revalidate_after timestamptz;
CREATE INDEX validation_tables_revalidate ON validation_tables (replication_id) WHERE revalidate_after IS NOT NULL;
`,
  },
  {
    version: 14,
    name: 'access keys record who disabled them and how wide that key was: only a key at least as wide enables them again',
    sql: `
ALTER TABLE access_keys
  -- NULL for an operator on the bus.
  ADD COLUMN disabled_by_access_key_id text,
  ADD COLUMN disabled_by_width text CHECK (disabled_by_width IN ('Own', 'All', 'Operator'));
-- Who disabled the keys disabled before is not known: a key of scope All (or an operator) enables them again.
UPDATE access_keys SET disabled_by_width = 'All' WHERE disabled;
`,
  },
  {
    version: 15,
    name: 'table_states.last_incarnation: the source database incarnation each watermark was read in (a restore past it reseeds)',
    sql: `
-- NULL for watermarks stored before: the first change read after the upgrade records the incarnation it reads in.
ALTER TABLE table_states ADD COLUMN last_incarnation text;
`,
  },
  {
    version: 16,
    name: 'alerts of kind TableAdded: a table that appeared in the source after Create, found and seeded',
    sql: `
ALTER TABLE alerts DROP CONSTRAINT IF EXISTS alerts_kind_check;
ALTER TABLE alerts ADD CONSTRAINT alerts_kind_check CHECK (kind IN ('SchemaChange', 'Reseed', 'Failure', 'RetentionDanger', 'Validation', 'TableAdded'));
`,
  },
  {
    version: 17,
    name: 'seed_plans and seed_chunks: a big table is seeded in key-range chunks, and a seed resumes from the chunks loaded',
    sql: `
CREATE TABLE seed_plans (
  replication_id uuid NOT NULL,
  table_name text NOT NULL,
  seed_id text NOT NULL,
  -- The capture horizon: the seed's close applies the changes from here over the chunks.
  start_version text NOT NULL,
  source_incarnation text,
  key_columns text[] NOT NULL,
  -- Inner key bounds in key order (each a list of the key's column texts): n bounds, n + 1 chunks.
  bounds jsonb NOT NULL,
  chunk_count integer NOT NULL CHECK (chunk_count >= 1),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (replication_id, table_name),
  FOREIGN KEY (replication_id, table_name) REFERENCES table_states (replication_id, table_name) ON DELETE CASCADE
);
CREATE TABLE seed_chunks (
  replication_id uuid NOT NULL,
  table_name text NOT NULL,
  seed_id text NOT NULL,
  chunk integer NOT NULL,
  row_count bigint NOT NULL,
  loaded_at timestamptz NOT NULL,
  PRIMARY KEY (replication_id, table_name, seed_id, chunk),
  FOREIGN KEY (replication_id, table_name) REFERENCES seed_plans (replication_id, table_name) ON DELETE CASCADE
);
`,
  },
  {
    version: 18,
    name: 'batch_halves: staging and the warehouse apply a batch at once; it is complete when both have reported',
    sql: `
CREATE TABLE batch_halves (
  work_id text NOT NULL,
  batch_id text NOT NULL,
  epoch bigint NOT NULL,
  staging_applied_at timestamptz,
  -- The loader's BatchLoaded, kept until staging's report completes the batch with it.
  loaded jsonb,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (work_id, batch_id, epoch)
);
CREATE INDEX batch_halves_recorded_at ON batch_halves (recorded_at);
`,
  },
  {
    version: 19,
    name: 'table_states.leaving: a table being removed from its replication gets no work while its source is released',
    sql: `
ALTER TABLE table_states ADD COLUMN leaving boolean NOT NULL DEFAULT false;
`,
  },
  {
    version: 20,
    name: 'alerts: the table an alert is about, acknowledgement, and resolution when its condition ends',
    sql: `
ALTER TABLE alerts
  ADD COLUMN table_name text,
  ADD COLUMN acknowledged_at timestamptz,
  ADD COLUMN acknowledged_by text,
  ADD COLUMN resolved_at timestamptz,
  ADD COLUMN resolution text;
CREATE INDEX alerts_unresolved ON alerts (replication_id, kind) WHERE resolved_at IS NULL;
`,
  },
  {
    version: 21,
    name: 'table_states.in_flight_group: the group a table\'s work in flight travels in (small changes of several tables as one unit)',
    sql: `
ALTER TABLE table_states ADD COLUMN in_flight_group uuid;
`,
  },
  {
    version: 22,
    name: 'alert targets (webhook, SNS, e-mail) and each alert\'s delivery to them (an outbox the registry works through)',
    sql: `
CREATE TABLE alert_targets (
  name text PRIMARY KEY,
  type text NOT NULL CHECK (type IN ('Webhook', 'Sns', 'Email')),
  settings jsonb NOT NULL,
  secrets bytea,
  alert_kinds text[],
  replication_ids uuid[],
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE alert_deliveries (
  alert_id uuid NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
  target_name text NOT NULL REFERENCES alert_targets (name) ON DELETE CASCADE,
  state text NOT NULL DEFAULT 'Pending' CHECK (state IN ('Pending', 'Delivered', 'Failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  last_error text,
  last_error_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (alert_id, target_name)
);
CREATE INDEX alert_deliveries_due ON alert_deliveries (next_attempt_at) WHERE state = 'Pending';
CREATE INDEX alert_deliveries_by_target ON alert_deliveries (target_name, state);
`,
  },
];
