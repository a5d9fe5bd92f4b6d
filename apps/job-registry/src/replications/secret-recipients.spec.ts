import type { AlterReplicationRequest, ReplicationConfig, ReseedingSchedule, ValidationSchedule } from '@svc/contracts';
import { fieldLabel } from '@svc/api-model';
import { warehouseEngineOf, type WarehouseEngine } from '@svc/connectors';
import { splitSecrets } from '@svc/registry-store';
import { SAMPLE_PARTS, sampleCreateRequest } from '../testing/requests';
import { mergeAlterRequest } from './alter-merge';
import { newReplicationConfig } from './new-replication-config';
import { STORED_SECRETS, alterFieldOf, type ConfigField } from './secret-recipients';

const ID = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
const RULE = 'a stored secret is never sent anywhere but where it was given for';

/** A warehouse of each engine: where the replication stores it, and another server of the same engine. */
const WAREHOUSES: Record<WarehouseEngine, { stored: string; other: string }> = {
  redshift: { stored: SAMPLE_PARTS.warehouseUrl, other: 'attacker.example.com:5439' },
  postgres: { stored: 'postgres://warehouse.internal:5432', other: 'postgres://attacker.example.com:5432' },
};

/**
 * Where each stored secret goes, as the Alter fields that name it, by the engine of the warehouse it goes with: what
 * this test holds the registry to, written out apart from secret-recipients.ts. Redshift's COPY carries the S3 key
 * pair to the cluster (libs/redshift/warehouse redshift-copy.ts); a PostgreSQL warehouse's loader reads the files
 * from S3 itself. libs/engine-list warehouse-secrets.spec.ts proves both with servers that record what reaches them.
 */
const WAREHOUSE_SERVER = [['warehouse', 'url'], ['warehouse', 'databaseName'], ['warehouse', 'username']];
const BUCKET = [['warehouse', 'bucketName'], ['warehouse', 'regionEndpoint'], ['warehouse', 'accessKey']];
const GOES_TO: Record<WarehouseEngine, Record<string, readonly string[][]>> = {
  redshift: {
    '{SourceConnectionString}': [['sourceConnectionString']],
    '{DestinationConnectionString}': [['destinationConnectionString']],
    '{Warehouse\\Password}': WAREHOUSE_SERVER,
    '{Warehouse\\SecretKey}': [...BUCKET, ...WAREHOUSE_SERVER],
  },
  postgres: {
    '{SourceConnectionString}': [['sourceConnectionString']],
    '{DestinationConnectionString}': [['destinationConnectionString']],
    '{Warehouse\\Password}': WAREHOUSE_SERVER,
    '{Warehouse\\SecretKey}': BUCKET,
  },
};

/** Other values for every field an Alter can carry: the types make a field added to the request fail here until it has one. */
type Changes<T> = { [K in keyof Required<T>]: readonly NonNullable<T[K]>[] };
type TopLevel = Omit<AlterReplicationRequest, 'replicationId' | 'warehouse' | 'reseedingSchedule' | 'validationSchedule'>;
const TOP_LEVEL: Changes<TopLevel> = {
  replicationName: ['renamed'],
  sourceConnectionString: ['postgres://app:callers-own-1@attacker.example.com:5432/sales', 'postgres://app@attacker.example.com:5432/sales'],
  destinationConnectionString: ['postgres://sa:callers-own-2@attacker.example.com:5432/sales_staging', 'postgres://sa@attacker.example.com:5432/sales_staging'],
  dataReplication: [false],
  schemaReplication: [false],
  parallelTablesLimit: [3],
  changeTrackingBatchLimit: [1000],
  ctProcessTimeoutInMinutes: [5],
  serializedCtProcessTimeoutInMinutes: [6],
  autoSerializedCtProcessTimeoutInMinutes: [7],
  isContinuous: [false],
  repeatIntervalInMinutes: [15],
  scheduleIntervalTimeFrom: ['01:00:00 AM'],
  scheduleIntervalTimeTo: ['02:00:00 AM'],
  isLogErrorsOnly: [false],
  alertOnSuccessfulTableSchemaChanges: [true],
  tablesToInclude: [['[dbo].[a]']],
};
const WAREHOUSE: Changes<NonNullable<AlterReplicationRequest['warehouse']>> = {
  accessType: ['IAMRole'],
  accessKey: ['AKIAOTHERKEY00000000'],
  secretKey: ['callers-own-secret-key-3'],
  accountId: ['123456789012'],
  roleName: ['svc-loader'],
  externalId: ['issued-elsewhere'],
  bucketName: ['attacker-bucket'],
  bucketFolderName: ['/elsewhere'],
  regionEndpoint: ['eu-west-1'],
  retentionDays: [3],
  // Every engine's other server, so that each stored warehouse is moved within its engine and to every other one.
  url: Object.values(WAREHOUSES).map((warehouse) => warehouse.other),
  databaseSchema: ['other_schema'],
  databaseName: ['other'],
  username: ['someone_else'],
  password: ['callers-own-password-4'],
  scdType: ['Type2'],
  timeoutInMins: [90],
};
const RESEEDING: Changes<ReseedingSchedule> = {
  noPkTablesToInclude: [['[dbo].[a]']],
  pkTablesToInclude: [['[dbo].[b]']],
  fromTime: ['01:00:00 AM'],
  toTime: ['03:00:00 AM'],
  repeatIntervalInMinutes: [60],
};
const VALIDATION: Changes<ValidationSchedule> = { fromTime: ['01:00:00 AM'], toTime: ['05:00:00 AM'], repeatIntervalInMinutes: [1440] };

interface Change {
  path: readonly string[];
  value: unknown;
  request: Omit<AlterReplicationRequest, 'replicationId'>;
}

function changesOf(changes: Record<string, readonly unknown[]>, group?: string): Change[] {
  return Object.entries(changes).flatMap(([member, values]) =>
    values.map((value) => ({
      path: group === undefined ? [member] : [group, member],
      value,
      request: group === undefined ? { [member]: value } : { [group]: { [member]: value } },
    })),
  );
}

const CHANGES: readonly Change[] = [
  ...changesOf(TOP_LEVEL),
  ...changesOf(WAREHOUSE, 'warehouse'),
  ...changesOf(RESEEDING, 'reseedingSchedule'),
  ...changesOf(VALIDATION, 'validationSchedule'),
];

function storedWith(engine: WarehouseEngine): ReplicationConfig {
  return newReplicationConfig(sampleCreateRequest({ ...SAMPLE_PARTS, warehouseUrl: WAREHOUSES[engine].stored }), 'sales');
}

/** Every secret a stored configuration or a change holds, none of which a message may quote. */
const SECRET_TEXTS = [
  'source-secret-1',
  'staging-secret-2',
  SAMPLE_PARTS.secretKey,
  SAMPLE_PARTS.warehousePassword,
  'callers-own-1',
  'callers-own-2',
  'callers-own-secret-key-3',
  'callers-own-password-4',
];

const same = (a: readonly string[], b: readonly string[]) => a.join('.') === b.join('.');
const valueAt = (config: ReplicationConfig, [group, member]: ConfigField): unknown => (config[group] as unknown as Record<string, unknown>)[member];
const engines = Object.keys(WAREHOUSES) as WarehouseEngine[];

describe('the stored secrets and where they go', () => {
  it('names every secret the registry stores sealed', () => {
    const config = storedWith('redshift');
    const sealed = Object.values(JSON.parse(splitSecrets(config).secretsJson) as Record<string, string>);
    const modelled = STORED_SECRETS.map(({ field }) => valueAt(config, field));
    expect([...modelled].sort()).toEqual([...sealed].sort());
    expect(STORED_SECRETS.map(({ field }) => fieldLabel(alterFieldOf(field))).sort()).toEqual(Object.keys(GOES_TO.redshift).sort());
  });
});

describe.each(engines)('an Alter of any one field of a replication with a %s warehouse', (engine) => {
  const stored = storedWith(engine);
  const cases = CHANGES.flatMap((change) =>
    STORED_SECRETS.map(({ field }) => [`${fieldLabel(change.path)}=${JSON.stringify(change.value)}`, fieldLabel(alterFieldOf(field)), change, field] as const),
  );

  it.each(cases)('%s either asks for %s again or does not move it', (_change, secret, change, field) => {
    const result = mergeAlterRequest(stored, { replicationId: ID, ...change.request });
    const messages = result.ok ? [] : result.messages;
    const about = messages.filter((message) => message.startsWith(`${secret}:`));
    const urlAfter = same(change.path, ['warehouse', 'url']) ? String(change.value) : stored.warehouse.url;
    const engineAfter = warehouseEngineOf(urlAfter);
    if (engineAfter === null) throw new Error(`no engine for ${urlAfter}`);

    if (same(change.path, alterFieldOf(field))) {
      // The change gives the secret itself: what was stored goes nowhere any more.
      expect(about).toEqual([]);
      if (result.ok) expect(valueAt(result.config, field)).toBe(change.value);
    } else if ((GOES_TO[engineAfter][secret] ?? []).some((recipient) => same(recipient, change.path))) {
      expect(about).toEqual([`${secret}: is required when ${fieldLabel(change.path)} changes: ${RULE}`]);
    } else {
      expect(about).toEqual([]);
    }
    for (const message of messages) for (const text of SECRET_TEXTS) expect(message).not.toContain(text);
  });
});
