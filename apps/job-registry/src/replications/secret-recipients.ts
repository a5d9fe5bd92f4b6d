import type { AlterReplicationRequest, ReplicationConfig } from '@svc/contracts';
import { fieldLabel } from '@svc/api-model';
import { secretsSentToWarehouseServer, warehouseEngineOf, type WarehouseEngine } from '@svc/connectors';
import type { WarehouseConnection, WarehouseSecret } from '@svc/engines';

/** A field of a stored configuration, as group and member. */
export type ConfigField = readonly ['source' | 'staging', 'connectionString'] | readonly ['warehouse', keyof ReplicationConfig['warehouse']];

/**
 * Where a replication sends things, each named by the configuration fields that choose it: the same values, the same
 * recipient. A connection string names its server, database and login at once. The warehouse server is what a
 * WarehouseConnection names but the password; the bucket is the region's S3, the bucket, and the key id that the
 * secret key signs as.
 */
const RECIPIENTS = {
  sourceServer: [['source', 'connectionString']],
  stagingServer: [['staging', 'connectionString']],
  warehouseServer: [['warehouse', 'url'], ['warehouse', 'databaseName'], ['warehouse', 'username']],
  bucket: [['warehouse', 'bucketName'], ['warehouse', 'regionEndpoint'], ['warehouse', 'accessKey']],
} as const satisfies Record<string, readonly ConfigField[]>;

type Recipient = keyof typeof RECIPIENTS;

// Every field that picks the warehouse server a connector logs in to is one of the recipient's.
type UnnamedServerField = Exclude<keyof WarehouseConnection, 'password' | (typeof RECIPIENTS.warehouseServer)[number][1]>;
const serverFieldsNamed: [UnnamedServerField] extends [never] ? true : UnnamedServerField = true;
void serverFieldsNamed;

interface StoredSecret {
  field: ConfigField;
  /** Where a configuration whose warehouse is of `engine` (null: a URL of no engine) sends it. */
  sentTo: (engine: WarehouseEngine | null) => readonly Recipient[];
}

/**
 * Every secret a replication stores (registry-store's sealed fields) and where it goes. The source and staging
 * passwords live in the connection string that names their server, so no Alter can move one without replacing it.
 * The warehouse's engine says what its connector sends to the warehouse server (Redshift's COPY: the S3 key pair).
 */
export const STORED_SECRETS: readonly StoredSecret[] = [
  { field: ['source', 'connectionString'], sentTo: () => ['sourceServer'] },
  { field: ['staging', 'connectionString'], sentTo: () => ['stagingServer'] },
  { field: ['warehouse', 'password'], sentTo: (engine) => toWarehouseServer(engine, 'password') },
  // The service's own S3 client signs every request to the bucket with the key pair, whatever the warehouse.
  { field: ['warehouse', 'secretKey'], sentTo: (engine) => ['bucket', ...toWarehouseServer(engine, 'secretKey')] },
];

/** The Alter field that sets a configuration field: seed §2.2 names the two connection strings its own way. */
export function alterFieldOf(field: ConfigField): readonly string[] {
  switch (field[0]) {
    case 'source':
      return ['sourceConnectionString'];
    case 'staging':
      return ['destinationConnectionString'];
    case 'warehouse':
      return field;
  }
}

/**
 * A field message for each stored secret the merged configuration would send somewhere it was not given for: the
 * request leaves it as stored while one of the places it goes to is named differently or receives it for the first
 * time. The message names the secret's field, the fields that moved and the rule, never a value.
 */
export function misdirectedSecrets(current: ReplicationConfig, merged: ReplicationConfig, request: AlterReplicationRequest): string[] {
  return STORED_SECRETS.flatMap(({ field, sentTo }) => {
    const stored = valueAt(current, field);
    if (stored === undefined || valueAt(merged, field) !== stored || valueAt(request, alterFieldOf(field)) !== undefined) return [];
    const before = new Set(sentTo(engineOf(current)));
    const moved = sentTo(engineOf(merged)).flatMap((recipient): readonly ConfigField[] => {
      const fields = RECIPIENTS[recipient];
      const changed = fields.filter((member) => valueAt(merged, member) !== valueAt(current, member));
      return before.has(recipient) || changed.length > 0 ? changed : fields;
    });
    if (moved.length === 0) return [];
    const names = [...new Set(moved.map((member) => fieldLabel(alterFieldOf(member))))].join(', ');
    return [`${fieldLabel(alterFieldOf(field))}: is required when ${names} changes: a stored secret is never sent anywhere but where it was given for`];
  });
}

function toWarehouseServer(engine: WarehouseEngine | null, secret: WarehouseSecret): readonly Recipient[] {
  return secretsSentToWarehouseServer(engine).includes(secret) ? ['warehouseServer'] : [];
}

function engineOf(config: ReplicationConfig): WarehouseEngine | null {
  return warehouseEngineOf(config.warehouse.url);
}

function valueAt(tree: object, path: readonly string[]): unknown {
  let value: unknown = tree;
  for (const key of path) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}
