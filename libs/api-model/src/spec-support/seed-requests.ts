/**
 * Request bodies shaped like the seed's examples (§2, §4), for the specs of this library only.
 * Trees use the decoded form: lower camel keys, values as the XML example writes them (text).
 */
import { decodeRequest, type WireFormat } from '@svc/api-codec';
import { type OperationName } from '@svc/contracts';

export type Tree = Record<string, unknown>;

export const GUID = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
export const GUID_AS_WRITTEN = '3F2504E0-4F89-11D3-9A0C-0305E82C3301';

/** CreateWarehouseReplication with AccessType=AccessKey, fields in the seed's order. */
export function createAccessKeyTree(): Tree {
  return {
    parallelTablesLimit: '10',
    rebuildIndexes: 'false',
    source: {
      connectionString: 'Data Source=src.example.com;Initial Catalog=Sales;User ID=repl;Password=Src-Pa55',
      encryptDataInTransit: 'true',
      changeTrackingRetentionPeriod: '2 DAYS',
    },
    staging: {
      connectionString: 'Data Source=stage.example.com;Initial Catalog=Sales;User ID=repl;Password=Stg-Pa55',
      encryptDataInTransit: 'true',
      replicateCompatibilityLevel: 'true',
    },
    warehouse: {
      accessType: 'AccessKey',
      accessKey: 'AKIAIOSFODNN7EXAMPLE',
      secretKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      bucketName: 'replication-bucket',
      bucketFolderName: '/replications/sales',
      regionEndpoint: 'us-east-1',
      retentionDays: '7',
      url: 'examplecluster.abc123xyz789.us-east-1.redshift.amazonaws.com:5439',
      databaseSchema: 'public',
      databaseName: 'dev',
      username: 'awsuser',
      password: 'Wh-Pa55word',
      scdType: 'Type1',
    },
    addUpdateTimestamp: 'true',
    tablesToInclude: '[dbo].[AuditLog], [dbo].[Events]',
    reseedingSchedule: {
      noPkTablesToInclude: '[dbo].[AuditLog]',
      pkTablesToInclude: '[dbo].[Products]',
      fromTime: '2:00:00 AM',
      toTime: '04:00:00 AM',
      repeatIntervalInMinutes: '1440',
    },
  };
}

/** The same Create with AccessType=IAMRole (rule 2): AccountId and RoleName instead of the key pair. */
export function createIamRoleTree(): Tree {
  const tree = createAccessKeyTree();
  const warehouse: Tree = { ...(tree['warehouse'] as Tree), accessType: 'IAMRole', accountId: '123456789012', roleName: 'RedshiftCopyRole' };
  delete warehouse['accessKey'];
  delete warehouse['secretKey'];
  return { ...tree, warehouse };
}

/** The canonical request both Create trees above decode into (AccessKey variant). */
export const CREATE_ACCESS_KEY_CANONICAL = {
  parallelTablesLimit: 10,
  rebuildIndexes: false,
  source: {
    connectionString: 'Data Source=src.example.com;Initial Catalog=Sales;User ID=repl;Password=Src-Pa55',
    encryptDataInTransit: true,
    changeTrackingRetentionPeriod: '2 Days',
  },
  staging: {
    connectionString: 'Data Source=stage.example.com;Initial Catalog=Sales;User ID=repl;Password=Stg-Pa55',
    encryptDataInTransit: true,
    replicateCompatibilityLevel: true,
  },
  warehouse: {
    accessType: 'AccessKey',
    accessKey: 'AKIAIOSFODNN7EXAMPLE',
    secretKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    bucketName: 'replication-bucket',
    bucketFolderName: '/replications/sales',
    regionEndpoint: 'us-east-1',
    retentionDays: 7,
    url: 'examplecluster.abc123xyz789.us-east-1.redshift.amazonaws.com:5439',
    databaseSchema: 'public',
    databaseName: 'dev',
    username: 'awsuser',
    password: 'Wh-Pa55word',
    scdType: 'Type1',
  },
  addUpdateTimestamp: true,
  tablesToInclude: ['[dbo].[AuditLog]', '[dbo].[Events]'],
  reseedingSchedule: {
    noPkTablesToInclude: ['[dbo].[AuditLog]'],
    pkTablesToInclude: ['[dbo].[Products]'],
    fromTime: '02:00:00 AM',
    toTime: '04:00:00 AM',
    repeatIntervalInMinutes: 1440,
  },
};

/** AlterWarehouseReplication as in the seed's XML example with AccessType=AccessKey (no ReseedingSchedule). */
export function alterAccessKeyTree(): Tree {
  return {
    replicationId: GUID_AS_WRITTEN,
    replicationName: 'Sales to warehouse',
    sourceConnectionString: 'Data Source=src.example.com;Initial Catalog=Sales;User ID=repl;Password=New-Pa55',
    destinationConnectionString: 'Data Source=stage.example.com;Initial Catalog=Sales;User ID=repl;Password=New-Pa55',
    dataReplication: 'true',
    schemaReplication: 'true',
    parallelTablesLimit: '8',
    changeTrackingBatchLimit: '500000',
    ctProcessTimeoutInMinutes: '30',
    serializedCtProcessTimeoutInMinutes: '30',
    autoSerializedCtProcessTimeoutInMinutes: '30',
    isContinuous: 'false',
    repeatIntervalInMinutes: '15',
    scheduleIntervalTimeFrom: '12:20:00 AM',
    scheduleIntervalTimeTo: '11:40:00 PM',
    isLogErrorsOnly: 'true',
    alertOnSuccessfulTableSchemaChanges: 'true',
    tablesToInclude: 'All',
    warehouse: {
      accessType: 'AccessKey',
      accessKey: 'AKIAIOSFODNN7EXAMPLE',
      secretKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      bucketName: 'replication-bucket',
      bucketFolderName: '/replications/sales',
      regionEndpoint: 'us-east-1',
      retentionDays: '7',
      url: 'examplecluster.abc123xyz789.us-east-1.redshift.amazonaws.com:5439',
      databaseSchema: 'public',
      databaseName: 'dev',
      username: 'awsuser',
      password: 'Wh-Pa55word',
      scdType: 'Type2',
      timeoutInMins: '60',
    },
  };
}

/** The seed's IAMRole Alter example: a partial Warehouse and a ReseedingSchedule. */
export function alterIamRoleTree(): Tree {
  return {
    replicationId: GUID_AS_WRITTEN,
    parallelTablesLimit: '8',
    warehouse: { accessType: 'IAMRole', accountId: '123456789012', roleName: 'RedshiftCopyRole', retentionDays: '5', timeoutInMins: '90' },
    reseedingSchedule: {
      noPkTablesToInclude: '[dbo].[AuditLog]',
      pkTablesToInclude: '',
      fromTime: '01:00:00 AM',
      toTime: '03:00:00 AM',
      repeatIntervalInMinutes: '720',
    },
  };
}

/** Literal JSON Create as the seed's example writes it: some numbers quoted, retention upper case, resetChangeTracking. */
export const CREATE_JSON_TEXT = `{
  "parallelTablesLimit": 10,
  "rebuildIndexes": "false",
  "source": {
    "connectionString": "Data Source=src.example.com;Initial Catalog=Sales;User ID=repl;Password=Src-Pa55",
    "encryptDataInTransit": "true",
    "changeTrackingRetentionPeriod": "2 DAYS",
    "resetChangeTracking": false
  },
  "staging": {
    "connectionString": "Data Source=stage.example.com;Initial Catalog=Sales;User ID=repl;Password=Stg-Pa55",
    "encryptDataInTransit": "true",
    "replicateCompatibilityLevel": "true"
  },
  "warehouse": {
    "accessType": "IAMRole",
    "accountId": "123456789012",
    "roleName": "RedshiftCopyRole",
    "bucketName": "replication-bucket",
    "bucketFolderName": "/replications/sales",
    "regionEndpoint": "us-east-1",
    "retentionDays": 7,
    "url": "examplecluster.abc123xyz789.us-east-1.redshift.amazonaws.com:5439",
    "databaseSchema": "public",
    "databaseName": "dev",
    "username": "awsuser",
    "password": "Wh-Pa55word",
    "scdType": "Type1"
  },
  "addUpdateTimestamp": "true",
  "tablesToInclude": "All",
  "reseedingSchedule": {
    "noPkTablesToInclude": "[dbo].[AuditLog]",
    "pkTablesToInclude": "",
    "fromTime": "02:00:00 AM",
    "toTime": "04:00:00 AM",
    "repeatIntervalInMinutes": "1440"
  }
}`;

/** Literal JSON Alter as the seed's example writes it: unquoted GUID, quoted numbers except retentionDays/timeoutInMins. */
export const ALTER_JSON_TEXT = `{
  "replicationId": ${GUID_AS_WRITTEN},
  "sourceConnectionString": "Data Source=src.example.com;User ID=repl;Password=New-Pa55",
  "dataReplication": "true",
  "parallelTablesLimit": "8",
  "changeTrackingBatchLimit": "250000",
  "isContinuous": "true",
  "isLogErrorsOnly": "false",
  "tablesToInclude": "[dbo].[AuditLog]",
  "warehouse": {
    "accessType": "AccessKey",
    "accessKey": "AKIAIOSFODNN7EXAMPLE",
    "secretKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "retentionDays": 5,
    "timeoutInMins": 90
  }
}`;

export const REMOVE = Symbol('remove');

/** A deep copy of `tree` with the field at `path` replaced, or removed with REMOVE. */
export function withChange(tree: Tree, path: readonly string[], value: unknown): Tree {
  const [head, ...rest] = path;
  if (head === undefined) throw new Error('empty path');
  const copy: Tree = structuredClone(tree);
  if (rest.length === 0) {
    if (value === REMOVE) delete copy[head];
    else copy[head] = value;
    return copy;
  }
  const child = copy[head];
  copy[head] = withChange(typeof child === 'object' && child !== null ? (child as Tree) : {}, rest, value);
  return copy;
}

/** Renders a decoded-form tree as the XML a client would send: PascalCase elements, text escaped. */
export function toXml(operation: OperationName, tree: Tree): string {
  return `<?xml version="1.0" encoding="utf-8"?>\n<${operation}Request>${xmlFields(tree)}</${operation}Request>`;
}

function xmlFields(tree: Tree): string {
  return Object.entries(tree)
    .map(([key, value]) => {
      const name = key.charAt(0).toUpperCase() + key.slice(1);
      const inner = typeof value === 'object' && value !== null ? xmlFields(value as Tree) : escapeXml(`${value as string | number | boolean}`);
      return `<${name}>${inner}</${name}>`;
    })
    .join('');
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function bodyOf(operation: OperationName, format: WireFormat, tree: Tree): string {
  return format === 'xml' ? toXml(operation, tree) : JSON.stringify(tree);
}

/** Decodes a body with the real codec, failing the test when the codec itself refuses it. */
export function decoded(operation: OperationName, format: WireFormat, body: string): Tree {
  const result = decodeRequest(operation, format, Buffer.from(body, 'utf8'));
  if (!result.ok) throw new Error(`codec refused the body: ${result.messages.join(' | ')}`);
  return result.tree;
}
