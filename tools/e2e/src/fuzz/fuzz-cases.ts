import { OPERATIONS, type OperationName } from '@svc/contracts';
import { FuzzGroup, RawValue, toJson, toXmlElement, type FuzzNode } from './fuzz-tree';
import { PROTOTYPE_NAMES, randomGuidForm, randomSecret, randomValue } from './fuzz-values';
import { Random } from './random';

export type Format = 'xml' | 'json';

/** What the fuzzer needs from the running stack. */
export interface FuzzContext {
  /** Placed in every secret field; no five characters of it may ever come back or reach a log. */
  marker: string;
  replicationId: string;
  sourceDatabase: string;
  stagingDatabase: string;
  warehouseDatabase: string;
  s3: { accessKeyId: string; secretAccessKey: string };
}

export interface FuzzCase {
  index: number;
  /** What was done to the request, for the failure report. */
  steps: string[];
  method: string;
  /** Path and query string as sent. */
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  /** The format the Content-Type names, which every answer must use; null when it names neither. */
  format: Format | null;
  /** A step the API must refuse (an unknown or repeated field, a foreign charset): a 200 is a failure. */
  mustRefuse: boolean;
}

type Path = string[];

/** Secret fields by operation; each holds the marker. */
const SECRET_PATHS: Partial<Record<OperationName, Path[]>> = {
  CreateWarehouseReplication: [['source', 'connectionString'], ['staging', 'connectionString'], ['warehouse', 'password'], ['warehouse', 'secretKey'], ['warehouse', 'url']],
  AlterWarehouseReplication: [['sourceConnectionString'], ['destinationConnectionString'], ['warehouse', 'password'], ['warehouse', 'secretKey'], ['warehouse', 'url']],
  PutAlertTarget: [['url'], ['signingSecret'], ['secretKey'], ['smtpUrl']],
};

const UNKNOWN_OPERATIONS = ['NoSuchOperation', 'createWarehouseReplication', 'CREATEWAREHOUSEREPLICATION', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'CreateWarehouseReplication.json', 'Create%00', '%2e%2e', 'x'.repeat(3000)];
const ODD_METHODS = ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'];
const QUERIES = ['?a=1', '?Action=ListWarehouseReplications', '?x=%E0%A4%A', '?__proto__=1&constructor=2', '?a=1&a=2', '?', `?q=${'q'.repeat(2000)}`, '?%zz=%zz'];

function pgUrl(database: string, password: string): string {
  return `postgres://postgres:${password}@127.0.0.1:5432/${database}`;
}

/** Valid bodies, as the seed writes them, secrets carrying the marker. */
function baseBody(operation: OperationName, context: FuzzContext, random: Random): Record<string, unknown> {
  const { marker } = context;
  switch (operation) {
    case 'CreateWarehouseReplication': {
      const accessKey = random.chance(0.5);
      return {
        parallelTablesLimit: '4',
        rebuildIndexes: 'false',
        source: { connectionString: pgUrl(context.sourceDatabase, marker), encryptDataInTransit: 'false', changeTrackingRetentionPeriod: '2 DAYS' },
        staging: { connectionString: pgUrl(context.stagingDatabase, marker), encryptDataInTransit: 'false', replicateCompatibilityLevel: 'false' },
        warehouse: {
          accessType: accessKey ? 'AccessKey' : 'IAMRole',
          ...(accessKey
            ? { accessKey: context.s3.accessKeyId, secretKey: context.s3.secretAccessKey }
            : { accountId: '123456789012', roleName: 'svc-writer' }),
          bucketName: 'fuzz-bucket',
          // A folder of its own: s3rver loses objects when probes of one folder run at once.
          bucketFolderName: `/f${random.text(12)}`,
          regionEndpoint: 'us-east-1',
          retentionDays: '3',
          url: 'postgres://127.0.0.1:5432',
          databaseSchema: 'fuzz',
          databaseName: context.warehouseDatabase,
          username: 'postgres',
          password: `Wh-${marker}`,
          scdType: 'Type1',
        },
        addUpdateTimestamp: 'false',
        tablesToInclude: '[public].[orders]',
        ...(random.chance(0.5) && {
          reseedingSchedule: { noPkTablesToInclude: '[public].[audit_log]', pkTablesToInclude: '', fromTime: '01:00:00 AM', toTime: '05:30:00 AM', repeatIntervalInMinutes: '60' },
        }),
      };
    }
    case 'AlterWarehouseReplication': {
      const optional: Record<string, unknown> = {
        replicationName: 'fuzzed',
        sourceConnectionString: pgUrl(context.sourceDatabase, marker),
        destinationConnectionString: pgUrl(context.stagingDatabase, marker),
        dataReplication: 'false',
        parallelTablesLimit: '3',
        changeTrackingBatchLimit: '1000',
        ctProcessTimeoutInMinutes: '30',
        isContinuous: 'true',
        scheduleIntervalTimeFrom: '12:20:00 AM',
        scheduleIntervalTimeTo: '11:40:00 PM',
        isLogErrorsOnly: 'true',
        tablesToInclude: '[public].[orders]',
        warehouse: { password: `Wh-${marker}`, retentionDays: 3, timeoutInMins: 60 },
        reseedingSchedule: { repeatIntervalInMinutes: '120' },
      };
      const chosen = Object.entries(optional).filter(() => random.chance(0.3));
      return { replicationId: context.replicationId, ...Object.fromEntries(chosen) };
    }
    case 'DescribeWarehouseReplication':
      return { replicationId: context.replicationId };
    case 'GetReplicationMetrics':
      return { replicationId: context.replicationId, ...(random.chance(0.5) && { sinceMinutes: '120', stepMinutes: '5' }) };
    // Never a replication that exists: a validation started by each case would compare the fuzz tables over and over.
    case 'StartReplicationValidation':
      return { replicationId: '00000000-0000-4000-8000-00000000dead', ...(random.chance(0.5) && { tablesToInclude: '[public].[orders]' }) };
    case 'DescribeReplicationValidation':
      return { replicationId: context.replicationId, ...(random.chance(0.5) && { validationId: '00000000-0000-4000-8000-0000000000aa' }) };
    // A validation nobody has: a repair must never touch the fuzz replication's tables.
    case 'RepairReplication':
      return { replicationId: context.replicationId, validationId: '00000000-0000-4000-8000-0000000000aa', ...(random.chance(0.5) && { tablesToInclude: '[public].[orders]' }) };
    case 'DeleteWarehouseReplication':
      // Never the replication the other cases alter: a GUID nobody has.
      return { replicationId: '00000000-0000-4000-8000-00000000dead' };
    case 'StartReplication':
      return random.chance(0.5) ? { replicationId: context.replicationId } : {};
    // Never the replication the other cases change: stopped, it would stay stopped for the rest of the run.
    case 'StopReplication':
      return { replicationId: '00000000-0000-4000-8000-00000000dead' };
    case 'AcknowledgeAlerts':
      return { replicationId: context.replicationId, ...(random.chance(0.5) && { alertIds: '00000000-0000-4000-8000-0000000000aa' }) };
    case 'AlterConfiguration':
      return random.chance(0.5) ? { serializeReplications: 'false' } : { parallelDatabaseReplicationsLimit: '5' };
    case 'ListWarehouseReplications':
    case 'StopReplicationService':
    case 'ListAccessKeys':
      return {};
    case 'CreateAccessKey':
      return { allowedOperations: 'ListWarehouseReplications', description: 'fuzz' };
    // Never a key that exists: the fuzzer must not disable, delete or rotate the key it signs with.
    case 'UpdateAccessKey':
      return { accessKeyId: 'SVCFUZZNOSUCHKEY', status: 'Disabled' };
    case 'DeleteAccessKey':
      return { accessKeyId: 'SVCFUZZNOSUCHKEY' };
    case 'RotateAccessKey':
      return { accessKeyId: 'SVCFUZZNOSUCHKEY', overlapMinutes: '5' };
    // A receiver that is never there: the alerts of the fuzzed replication wait for it, nothing else does.
    case 'PutAlertTarget':
      return random.chance(0.5)
        ? { name: 'fuzz-webhook', type: 'Webhook', url: `http://127.0.0.1:9/${marker}`, signingSecret: `${marker}-signing-secret`, alertKinds: 'Failure' }
        : { name: 'fuzz-mail', type: 'Email', smtpUrl: `smtp://fuzz:${marker}@127.0.0.1:9`, from: 'svc@example.com', to: 'ops@example.com' };
    case 'DeleteAlertTarget':
      return { name: 'fuzz-no-such-target' };
    case 'ListAlertTargets':
      return {};
  }
}

/** Every path to a field or group in the tree. */
function pathsOf(group: FuzzGroup, prefix: Path = []): Path[] {
  return group.entries.flatMap(([key, value]) => [[...prefix, key], ...(value instanceof FuzzGroup ? pathsOf(value, [...prefix, key]) : [])]);
}

function groupAt(root: FuzzGroup, path: Path): FuzzGroup | null {
  let current: FuzzNode = root;
  for (const key of path) {
    if (!(current instanceof FuzzGroup)) return null;
    current = current.entries.find(([name]) => name === key)?.[1] ?? null;
  }
  return current instanceof FuzzGroup ? current : null;
}

function isSecretPath(operation: OperationName, path: Path): boolean {
  return (SECRET_PATHS[operation] ?? []).some((secret) => secret.join('.') === path.join('.'));
}

/** One change to the tree; returns its description and whether the API must refuse the result. */
/** What the mutations put in that the API must refuse, checked against the tree as it is in the end. */
interface Refusals {
  /** Fields no request has. */
  unknownEntries: WeakSet<[string, FuzzNode]>;
  /** XML attributes and loose text: a value the API would otherwise ignore. */
  ignoredMarkup: WeakSet<RawValue>;
}

/** Whether the final tree still holds an unknown field, a repeated one or markup the API must not ignore. */
function mustRefuseTree(group: FuzzGroup, format: Format, refusals: Refusals): boolean {
  const names = group.entries.map(([key]) => (format === 'xml' ? key.charAt(0).toUpperCase() + key.slice(1) : key));
  if (new Set(names).size !== names.length) return true;
  return group.entries.some(
    (entry) =>
      refusals.unknownEntries.has(entry) ||
      (entry[1] instanceof RawValue && format === 'xml' && refusals.ignoredMarkup.has(entry[1])) ||
      (entry[1] instanceof FuzzGroup && mustRefuseTree(entry[1], format, refusals)),
  );
}

/** One change to the tree, described for the failure report. */
function mutateTree(random: Random, operation: OperationName, format: Format, root: FuzzGroup, context: FuzzContext, refusals: Refusals): string {
  const paths = pathsOf(root);
  const groups: Path[] = [[], ...paths.filter((path) => groupAt(root, path) !== null)];
  const roll = random.int(100);
  if (roll < 45 && paths.length > 0) {
    const path = random.pick(paths);
    const parent = groupAt(root, path.slice(0, -1));
    const entry = parent?.entries.find(([name]) => name === path[path.length - 1]);
    if (!entry) return 'nothing';
    if (isSecretPath(operation, path)) entry[1] = randomSecret(random, context.marker, typeof entry[1] === 'string' ? entry[1] : context.marker);
    else if (path[path.length - 1] === 'replicationId') entry[1] = randomGuidForm(random, context.replicationId);
    else entry[1] = randomValue(random);
    return `${path.join('.')} = ${describe(entry[1])}`;
  }
  if (roll < 55) {
    // A secret field given where the request may not have it, or a field the operation does not have.
    const secrets = SECRET_PATHS[operation] ?? [];
    if (secrets.length > 0) {
      const path = random.pick(secrets);
      const parentPath = path.slice(0, -1);
      let parent = groupAt(root, parentPath);
      if (!parent) {
        parent = new FuzzGroup([]);
        root.entries.push([parentPath.join('.') || 'warehouse', parent]);
      }
      const key = path[path.length - 1] ?? 'password';
      const existing = parent.entries.find(([name]) => name === key);
      const value = randomSecret(random, context.marker, context.marker);
      if (existing) existing[1] = value;
      else parent.entries.push([key, value]);
      return `secret ${path.join('.')} = ${describe(value)}`;
    }
  }
  if (roll < 70) {
    const at = random.pick(groups);
    // None of these is a field anywhere (in JSON, names are lower camel case).
    const name = random.pick([...PROTOTYPE_NAMES, 'bogus', 'Bogus', 'parallelTablesLimitX', 'a b', 'ü', 'x'.repeat(300), ...(format === 'json' ? ['', 'ParallelTablesLimit', 'ReplicationId', 'Password'] : [])]);
    const group = groupAt(root, at) ?? root;
    const entry: [string, FuzzNode] = [name, random.chance(0.7) ? 'x' : randomValue(random)];
    group.entries.push(entry);
    refusals.unknownEntries.add(entry);
    return `add ${[...at, name].join('.')}`;
  }
  if (roll < 80 && paths.length > 0) {
    const path = random.pick(paths);
    const parent = groupAt(root, path.slice(0, -1));
    const entry = parent?.entries.find(([name]) => name === path[path.length - 1]);
    if (!parent || !entry) return 'nothing';
    const copy: FuzzNode = random.chance(0.5) ? entry[1] : randomValue(random);
    parent.entries.push([entry[0], copy]);
    return `repeat ${path.join('.')}`;
  }
  if (roll < 88 && paths.length > 0) {
    const path = random.pick(paths);
    const parent = groupAt(root, path.slice(0, -1));
    if (parent) parent.entries.splice(parent.entries.findIndex(([name]) => name === path[path.length - 1]), 1);
    return `remove ${path.join('.')}`;
  }
  if (format === 'xml' && paths.length > 0) {
    const path = random.pick(paths);
    const parent = groupAt(root, path.slice(0, -1));
    const entry = parent?.entries.find(([name]) => name === path[path.length - 1]);
    if (!entry) return 'nothing';
    const inner = entry[1];
    const content = (name: string) => toXmlElement(name, inner).replace(/^<[^>]*>|<\/[^>]*>$/g, '');
    const kind = random.pick(['attribute', 'namespace', 'xmlns', 'cdata-wrap', 'comment-before', 'pi-before', 'text-before']);
    const wrapped = new RawValue(toJson(inner), (name) => {
      const open = inner === null || toXmlElement(name, inner).endsWith('/>') ? '' : content(name);
      switch (kind) {
        case 'attribute':
          return `<${name} kind="x">${open}</${name}>`;
        case 'namespace':
          return `<n:${name} xmlns:n="urn:fuzz">${open}</n:${name}>`;
        case 'xmlns':
          return `<${name} xmlns="urn:fuzz">${open}</${name}>`;
        case 'cdata-wrap':
          return `<${name}><![CDATA[${open}]]></${name}>`;
        case 'comment-before':
          return `<!-- before -->${toXmlElement(name, inner)}`;
        case 'pi-before':
          return `<?fuzz x?>${toXmlElement(name, inner)}`;
        default:
          return `stray text${toXmlElement(name, inner)}`;
      }
    });
    entry[1] = wrapped;
    // An attribute carries a value the API would otherwise ignore; loose text between elements is not a field.
    if (kind === 'attribute' || kind === 'text-before') refusals.ignoredMarkup.add(wrapped);
    return `${kind} on ${path.join('.')}`;
  }
  const value = new RawValue(random.pick(['1e309', '"\\ud800"', '-0', '9007199254740993', '"\\u0000"']), () => '');
  const path = paths.length > 0 ? random.pick(paths) : ['x'];
  const parent = groupAt(root, path.slice(0, -1));
  const entry = parent?.entries.find(([name]) => name === path[path.length - 1]);
  if (entry) entry[1] = value;
  return `${path.join('.')} = raw ${value.json}`;
}

function describe(node: FuzzNode): string {
  const text = node instanceof RawValue ? `raw ${node.json}` : toJson(node);
  return text.length > 80 ? `${text.slice(0, 80)}… (${text.length} chars)` : text;
}

function serialise(operation: string, format: Format, root: FuzzGroup, random: Random): string {
  if (format === 'json') return toJson(root);
  const declaration = random.pick(['', '<?xml version="1.0" encoding="UTF-8"?>\n', '<?xml version="1.0"?>', '<?xml version="1.0" encoding="utf-8" standalone="yes"?>']);
  const content = root.entries.map(([key, value]) => toXmlElement(key, value)).join(random.pick(['', '\n  ']));
  return `${declaration}<${operation}Request>${content}</${operation}Request>`;
}

/** Changes to the bytes after they were written: what a broken client or a hostile one sends. */
function mutateBytes(random: Random, body: Buffer, context: FuzzContext): { body: Buffer; step: string } {
  switch (random.int(9)) {
    case 0:
      return { body: body.subarray(0, random.int(body.length + 1)), step: 'truncated' };
    case 1: {
      const at = random.int(body.length + 1);
      return { body: Buffer.concat([body.subarray(0, at), Buffer.from([0xff, 0xc0, 0x80]), body.subarray(at)]), step: 'invalid UTF-8 inside' };
    }
    case 2:
      return { body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]), step: 'byte order mark' };
    case 3:
      return { body: Buffer.from(random.pick(['', ' ', 'null', '[]', '"x"', '0', '{}', '<a/>', '<X/><Y/>', '{"a":1}{"b":2}', 'true'])), step: 'other document' };
    case 4: {
      const at = body.indexOf(context.marker);
      const cut = at === -1 ? random.int(body.length + 1) : at + random.int(context.marker.length);
      return { body: body.subarray(0, cut), step: 'truncated inside the secret' };
    }
    case 5:
      return { body: Buffer.concat([body, Buffer.from(random.pick(['x', '}', '</X>', '\u0000', ' <!-- -->', '<?pi?>']))]), step: 'trailing text' };
    case 6:
      return { body: Buffer.from(body.toString('utf8').replace(/\s+/g, ' ').toUpperCase()), step: 'upper-cased' };
    case 7:
      return { body: Buffer.alloc(1024 * 1024 + 10, 0x20), step: 'over 1 MiB' };
    default:
      return { body: Buffer.from(body.toString('utf8').replace(/"/g, "'")), step: 'single quotes' };
  }
}

function contentTypeFor(random: Random, format: Format): { contentType: string | undefined; format: Format | null; step: string | null; foreignCharset: boolean } {
  const plain = format === 'xml' ? random.pick(['application/xml', 'text/xml']) : 'application/json';
  if (random.chance(0.8)) return { contentType: plain, format, step: null, foreignCharset: false };
  const choice = random.pick<[string | undefined, Format | null, boolean]>([
    [`${plain}; charset=utf-8`, format, false],
    [`${plain};charset=UTF-8`, format, false],
    [`${plain}; charset="utf-8"`, format, false],
    [`${plain}; charset=latin1`, format, true],
    [`${plain}; charset=utf-16`, format, true],
    [`${plain.toUpperCase()}`, format, false],
    [` ${plain} `, format, false],
    [`${plain}; boundary=x; q=1`, format, false],
    ['application/json, application/xml', null, false],
    ['application/xml, application/json', null, false],
    [format === 'xml' ? 'application/atom+xml' : 'application/problem+json', null, false],
    ['text/plain', null, false],
    ['multipart/form-data; boundary=x', null, false],
    ['', null, false],
    [undefined, null, false],
  ]);
  return { contentType: choice[0], format: choice[1], step: `Content-Type ${JSON.stringify(choice[0])}`, foreignCharset: choice[2] };
}

/** Case `index` of the run with `seed`: the same request every time. */
export function fuzzCase(seed: number, index: number, context: FuzzContext): FuzzCase {
  const random = Random.forCase(seed, index);
  const steps: string[] = [];
  const bodyFormat: Format = random.chance(0.5) ? 'xml' : 'json';
  let operation: string = random.pick(OPERATIONS);
  if (random.chance(0.04)) {
    operation = random.pick(UNKNOWN_OPERATIONS);
    steps.push(`unknown operation ${operation.slice(0, 40)}`);
  }
  const knownOperation = (OPERATIONS as readonly string[]).includes(operation) ? (operation as OperationName) : 'ListWarehouseReplications';
  const root = FuzzGroup.of(baseBody(knownOperation, context, random));
  const mutations = random.pick([0, 1, 1, 1, 2, 2, 3]);
  const refusals: Refusals = { unknownEntries: new WeakSet(), ignoredMarkup: new WeakSet() };
  for (let count = 0; count < mutations; count += 1) steps.push(mutateTree(random, knownOperation, bodyFormat, root, context, refusals));
  let mustRefuse = mustRefuseTree(root, bodyFormat, refusals);
  let body: Buffer = Buffer.from(serialise(operation, bodyFormat, root, random), 'utf8');
  if (random.chance(0.06)) {
    const changed = mutateBytes(random, body, context);
    body = changed.body;
    steps.push(changed.step);
    mustRefuse = false;
  }
  const type = contentTypeFor(random, bodyFormat);
  if (type.step) steps.push(type.step);
  mustRefuse ||= type.foreignCharset;

  let method = 'POST';
  if (random.chance(0.04)) {
    method = random.pick(ODD_METHODS);
    steps.push(`method ${method}`);
  }
  let path = `/api/${operation}`;
  if (random.chance(0.04)) {
    const query = random.pick(QUERIES);
    path += query;
    steps.push(`query ${query.slice(0, 40)}`);
  }
  const headers: Record<string, string> = {};
  if (type.contentType !== undefined) headers['content-type'] = type.contentType;
  if (random.chance(0.1)) {
    headers['accept'] = random.pick(['application/xml', 'application/json', 'text/html', '*/*', 'application/xml, application/json']);
    steps.push(`Accept ${headers['accept']}`);
  }
  return { index, steps: [`${method} ${bodyFormat} ${operation.slice(0, 40)}`, ...steps], method, path, headers, body, format: type.format, mustRefuse };
}
