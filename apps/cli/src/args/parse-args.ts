import { ERROR_DETAILS_PERMISSION, type ManageAccessKeysRequest, type OperationName } from '@svc/contracts';
import { UsageError } from '../exit-codes';
import { OPERATION_ALIASES, resolveOperation } from './operation-alias';

export type BodyFormat = 'json' | 'xml';

/** One `--set a.b=value` (or `--replication-id`): a field path and its text value, as given. */
export interface FieldAssignment {
  path: string[];
  value: string;
}

export interface ConnectionFlags {
  endpoint?: string;
  profile?: string;
  region?: string;
  /** --insecure: plain HTTP to a host beyond loopback is allowed. */
  insecure?: true;
  /** --ca-file: the CA to trust for an https:// endpoint. */
  caFile?: string;
}

export interface OperationCommand {
  kind: 'operation';
  /** Absent when it is to be inferred from the XML root element of the body. */
  operation?: OperationName;
  file?: string;
  body?: string;
  format?: BodyFormat;
  assignments: FieldAssignment[];
  connection: ConnectionFlags;
  raw: boolean;
}

/**
 * Where `svc keys` goes: the signed API with the user's credentials (the default), or the bus as an operator
 * (`--over-bus`, or `--nats-url`): the only way to the first key when no key works yet.
 */
export type KeysTransport = { kind: 'api'; connection: ConnectionFlags } | { kind: 'bus'; natsUrl?: string };

export interface KeysCreateCommand {
  kind: 'keys-create';
  /** `['*']` or operation names. */
  allowedOperations: Array<OperationName | '*' | typeof ERROR_DETAILS_PERMISSION>;
  /** `--replications all`: every replication and the service-wide operations; the key's own replications otherwise. */
  replicationScope: 'Own' | 'All';
  description?: string;
  /** `--expires-at`, an ISO timestamp (over the signed API only). */
  expiresAt?: string;
  transport: KeysTransport;
}

/** `svc keys list|disable|enable|delete|rotate|expire`: the lifecycle of access keys. */
export interface KeysManageCommand {
  kind: 'keys-manage';
  request: ManageAccessKeysRequest;
  transport: KeysTransport;
}

/** `svc describe --replication-id ID --watch [--interval SECONDS] [--until-tracking]` */
export interface DescribeWatchCommand {
  kind: 'describe-watch';
  replicationId: string;
  intervalSeconds: number;
  /** End once every table is tracking (0) or on a failure (1), for scripts; without it the watch follows until Ctrl-C. */
  untilTracking: boolean;
  connection: ConnectionFlags;
}

export type CliCommand = { kind: 'help' } | OperationCommand | KeysCreateCommand | KeysManageCommand | DescribeWatchCommand;

interface FlagSpec {
  takesValue: boolean;
  repeatable?: boolean;
}

const OPERATION_FLAGS: Record<string, FlagSpec> = {
  file: { takesValue: true },
  body: { takesValue: true },
  format: { takesValue: true },
  'replication-id': { takesValue: true },
  set: { takesValue: true, repeatable: true },
  endpoint: { takesValue: true },
  profile: { takesValue: true },
  region: { takesValue: true },
  insecure: { takesValue: false },
  'ca-file': { takesValue: true },
  raw: { takesValue: false },
  watch: { takesValue: false },
  interval: { takesValue: true },
  'until-tracking': { takesValue: false },
  tables: { takesValue: true },
  'validation-id': { takesValue: true },
};

/**
 * Operations that take their replication as the argument after the operation, and flags that set one of their
 * fields: `svc validate ID --tables "[dbo].[Orders],[dbo].[Lines]"`, `svc validation ID --validation-id ID`,
 * `svc repair ID --validation-id ID [--tables ...]`.
 */
const OPERATION_SHORTHANDS: Partial<Record<OperationName, { fieldFlags: Record<string, string> }>> = {
  StartReplicationValidation: { fieldFlags: { tables: 'tablesToInclude' } },
  DescribeReplicationValidation: { fieldFlags: { 'validation-id': 'validationId' } },
  RepairReplication: { fieldFlags: { 'validation-id': 'validationId', tables: 'tablesToInclude' } },
};
const FIELD_FLAGS = [...new Set(Object.values(OPERATION_SHORTHANDS).flatMap((shorthand) => Object.keys(shorthand.fieldFlags)))];

export const DEFAULT_WATCH_INTERVAL_SECONDS = 2;
const MIN_WATCH_INTERVAL_SECONDS = 0.5;
const MAX_WATCH_INTERVAL_SECONDS = 3600;
/** Flags that choose or shape a body or its printing; the watch builds its own JSON body and prints frames. */
const FLAGS_WATCH_REFUSES = ['file', 'body', 'format', 'set', 'raw'];

/** How `svc keys` reaches the registry: the signed API's connection flags, or the bus. */
const KEYS_TRANSPORT_FLAGS: Record<string, FlagSpec> = {
  endpoint: { takesValue: true },
  profile: { takesValue: true },
  region: { takesValue: true },
  insecure: { takesValue: false },
  'ca-file': { takesValue: true },
  'over-bus': { takesValue: false },
  'nats-url': { takesValue: true },
};

const KEYS_CREATE_FLAGS: Record<string, FlagSpec> = {
  operations: { takesValue: true },
  replications: { takesValue: true },
  description: { takesValue: true },
  'expires-at': { takesValue: true },
  ...KEYS_TRANSPORT_FLAGS,
};

const API_CONNECTION_FLAGS = ['endpoint', 'profile', 'region', 'insecure', 'ca-file'];

function keysTransport(tokens: Tokens): KeysTransport {
  const natsUrl = single(tokens, 'nats-url');
  if (!tokens.flags.has('over-bus') && natsUrl === undefined) return { kind: 'api', connection: connectionFlags(tokens) };
  const apiFlag = API_CONNECTION_FLAGS.find((name) => tokens.flags.has(name));
  if (apiFlag !== undefined) throw new UsageError(`--${apiFlag} is for the signed API; it cannot be combined with --over-bus or --nats-url`);
  return { kind: 'bus', ...(natsUrl !== undefined && { natsUrl }) };
}

/** An ISO timestamp given on the command line, as the API reads it. */
function isoTimestamp(flag: string, text: string): string {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(text) || Number.isNaN(Date.parse(text))) {
    throw new UsageError(`${flag} must be an ISO timestamp with its offset, such as 2027-01-31T00:00:00Z, not '${text}'`);
  }
  return new Date(text).toISOString();
}

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

interface Tokens {
  positionals: string[];
  flags: Map<string, string[]>;
}

function isHelpRequest(argv: string[]): boolean {
  return argv.length > 0 && (argv[0] === 'help' || argv.some((arg) => arg === '--help' || arg === '-h'));
}

/** Splits argv into positionals and `--name value` / `--name=value` flags known to `specs`. */
function tokenize(argv: string[], specs: Record<string, FlagSpec>): Tokens {
  const positionals: string[] = [];
  const flags = new Map<string, string[]>();
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    if (arg === '--') {
      positionals.push(...argv.slice(index + 1));
      break;
    }
    if (!arg.startsWith('--')) {
      if (arg.startsWith('-') && arg.length > 1) throw new UsageError(`unknown option '${arg}'`);
      positionals.push(arg);
      continue;
    }
    const equals = arg.indexOf('=');
    const name = arg.slice(2, equals === -1 ? undefined : equals);
    // Own keys only: `--toString` must be an unknown option, not Object.prototype's method.
    const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
    if (spec === undefined) throw new UsageError(`unknown option '--${name}'`);
    let value: string;
    if (!spec.takesValue) {
      if (equals !== -1) throw new UsageError(`--${name} takes no value`);
      value = '';
    } else if (equals !== -1) {
      value = arg.slice(equals + 1);
    } else {
      const next = argv[index + 1];
      if (next === undefined) throw new UsageError(`--${name} needs a value`);
      value = next;
      index++;
    }
    const values = flags.get(name) ?? [];
    if (values.length > 0 && !spec.repeatable) throw new UsageError(`--${name} is given more than once`);
    values.push(value);
    flags.set(name, values);
  }
  return { positionals, flags };
}

function single(tokens: Tokens, name: string): string | undefined {
  return tokens.flags.get(name)?.[0];
}

export function parseFieldAssignment(text: string): FieldAssignment {
  const equals = text.indexOf('=');
  if (equals === -1) throw new UsageError(`--set '${text}': expected path=value`);
  const pathText = text.slice(0, equals);
  const path = pathText.split('.');
  for (const segment of path) {
    if (!FIELD_NAME.test(segment)) {
      throw new UsageError(`--set '${pathText}': each part of the path must be a field name like Warehouse.BucketName`);
    }
  }
  return { path, value: text.slice(equals + 1) };
}

function parseFormat(text: string | undefined): BodyFormat | undefined {
  if (text === undefined) return undefined;
  const lowered = text.toLowerCase();
  if (lowered === 'json' || lowered === 'xml') return lowered;
  throw new UsageError(`--format must be json or xml, not '${text}'`);
}

function parseWatchInterval(text: string | undefined): number {
  if (text === undefined) return DEFAULT_WATCH_INTERVAL_SECONDS;
  const seconds = /^\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : NaN;
  if (!(seconds >= MIN_WATCH_INTERVAL_SECONDS && seconds <= MAX_WATCH_INTERVAL_SECONDS)) {
    throw new UsageError(`--interval must be a number of seconds from ${MIN_WATCH_INTERVAL_SECONDS} to ${MAX_WATCH_INTERVAL_SECONDS}, not '${text}'`);
  }
  return seconds;
}

function connectionFlags(tokens: Tokens): ConnectionFlags {
  const endpoint = single(tokens, 'endpoint');
  const profile = single(tokens, 'profile');
  const region = single(tokens, 'region');
  const caFile = single(tokens, 'ca-file');
  return {
    ...(endpoint !== undefined && { endpoint }),
    ...(profile !== undefined && { profile }),
    ...(region !== undefined && { region }),
    ...(tokens.flags.has('insecure') && { insecure: true }),
    ...(caFile !== undefined && { caFile }),
  };
}

function parseDescribeWatch(tokens: Tokens, operation: OperationName | undefined): DescribeWatchCommand {
  if (operation !== 'DescribeWarehouseReplication') throw new UsageError('--watch works with describe only: svc describe --replication-id ID --watch');
  const refused = FLAGS_WATCH_REFUSES.find((name) => tokens.flags.has(name));
  if (refused !== undefined) throw new UsageError(`--watch cannot be combined with --${refused}`);
  const replicationId = single(tokens, 'replication-id');
  if (replicationId === undefined) throw new UsageError('svc describe --watch needs --replication-id ID');
  return {
    kind: 'describe-watch',
    replicationId,
    intervalSeconds: parseWatchInterval(single(tokens, 'interval')),
    untilTracking: tokens.flags.has('until-tracking'),
    connection: connectionFlags(tokens),
  };
}

/** The replication given after the operation and the fields its flags set, as `--replication-id` and `--set` would give them. */
function shorthandAssignments(tokens: Tokens, operation: OperationName | undefined, replicationId: string | undefined): FieldAssignment[] {
  const shorthand = operation === undefined ? undefined : OPERATION_SHORTHANDS[operation];
  const command = operation === undefined ? 'an operation named by its XML body' : `svc ${aliasOf(operation)}`;
  const foreignFlag = FIELD_FLAGS.find((flag) => tokens.flags.has(flag) && shorthand?.fieldFlags[flag] === undefined);
  if (foreignFlag !== undefined) throw new UsageError(`--${foreignFlag} does not go with ${command}`);
  if (replicationId !== undefined && tokens.flags.has('replication-id')) {
    throw new UsageError(`give the replication once: after ${command} or as --replication-id`);
  }
  const fields = Object.entries(shorthand?.fieldFlags ?? {}).flatMap(([flag, field]) => {
    const value = single(tokens, flag);
    return value === undefined ? [] : [{ path: [field], value }];
  });
  return [...(replicationId === undefined ? [] : [{ path: ['replicationId'], value: replicationId }]), ...fields];
}

function aliasOf(operation: OperationName): string {
  return Object.entries(OPERATION_ALIASES).find(([, aliased]) => aliased === operation)?.[0] ?? operation;
}

function parseOperationCommand(argv: string[]): OperationCommand | DescribeWatchCommand {
  const tokens = tokenize(argv, OPERATION_FLAGS);
  const [operationText, ...argumentsAfter] = tokens.positionals;
  const operation = operationText === undefined ? undefined : resolveOperation(operationText);
  const takesReplicationArgument = operation !== undefined && OPERATION_SHORTHANDS[operation] !== undefined;
  if (argumentsAfter.length > (takesReplicationArgument ? 1 : 0)) {
    throw new UsageError(`expected one operation${takesReplicationArgument ? ' and one replication id' : ''}, got '${tokens.positionals.join(' ')}'`);
  }
  if (operationText !== undefined && operation === undefined) throw new UsageError(`unknown operation '${operationText}'`);
  const shorthand = shorthandAssignments(tokens, operation, argumentsAfter[0]);
  if (tokens.flags.has('watch')) return parseDescribeWatch(tokens, operation);
  if (tokens.flags.has('interval')) throw new UsageError('--interval only goes with --watch');
  if (tokens.flags.has('until-tracking')) throw new UsageError('--until-tracking only goes with --watch');

  const file = single(tokens, 'file');
  const body = single(tokens, 'body');
  const replicationId = single(tokens, 'replication-id');
  const assignments = [...shorthand, ...(tokens.flags.get('set') ?? []).map(parseFieldAssignment)];
  if (replicationId !== undefined) assignments.unshift({ path: ['replicationId'], value: replicationId });
  if (file !== undefined && body !== undefined) throw new UsageError('give either --file or --body, not both');
  if ((file !== undefined || body !== undefined) && assignments.length > 0) {
    const builders = ['--set', '--replication-id', 'the replication id after the operation', ...FIELD_FLAGS.map((flag) => `--${flag}`)];
    throw new UsageError(`${builders.join(', ')} build the body; they cannot be combined with --file or --body`);
  }
  if (operation === undefined && file === undefined && body === undefined) {
    throw new UsageError('name the operation (e.g. svc describe --replication-id ID), or give an XML --file/--body to infer it from');
  }

  const format = parseFormat(single(tokens, 'format'));
  return {
    kind: 'operation',
    ...(operation !== undefined && { operation }),
    ...(file !== undefined && { file }),
    ...(body !== undefined && { body }),
    ...(format !== undefined && { format }),
    assignments,
    connection: connectionFlags(tokens),
    raw: tokens.flags.has('raw'),
  };
}

/** `*` alone, or a comma-separated list of operation names or aliases, and DescribeReplicationErrorDetails. */
export function parseAllowedOperations(text: string): Array<OperationName | '*' | typeof ERROR_DETAILS_PERMISSION> {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
  if (items.length === 0) throw new UsageError('--operations needs at least one operation name, or *');
  if (items.includes('*')) {
    if (items.length > 1) throw new UsageError("--operations: '*' already allows every operation; give it alone");
    return ['*'];
  }
  const operations = items.map((item) => {
    // Not an operation: the permission to read what a server said of a failure (Describe's LastErrorDetail).
    if (item.toLowerCase() === ERROR_DETAILS_PERMISSION.toLowerCase()) return ERROR_DETAILS_PERMISSION;
    const operation = resolveOperation(item);
    if (operation === undefined) throw new UsageError(`--operations: unknown operation '${item}'`);
    return operation;
  });
  return [...new Set(operations)];
}

const KEYS_MANAGE_FLAGS: Record<string, FlagSpec> = {
  'access-key-id': { takesValue: true },
  'overlap-minutes': { takesValue: true },
  at: { takesValue: true },
  ...KEYS_TRANSPORT_FLAGS,
};

const KEY_ACTIONS = { list: 'List', disable: 'Disable', enable: 'Enable', delete: 'Delete', rotate: 'Rotate', expire: 'Expire' } as const;

function parseKeysManageCommand(action: (typeof KEY_ACTIONS)[keyof typeof KEY_ACTIONS], argv: string[]): KeysManageCommand {
  const tokens = tokenize(argv, KEYS_MANAGE_FLAGS);
  if (tokens.positionals.length > 1) throw new UsageError(`unexpected argument '${tokens.positionals.slice(1).join(' ')}'`);
  const accessKeyId = single(tokens, 'access-key-id');
  if (action !== 'List' && accessKeyId === undefined) throw new UsageError(`svc keys ${action.toLowerCase()} needs --access-key-id`);
  const request: ManageAccessKeysRequest = { action, ...(accessKeyId !== undefined && { accessKeyId }) };
  const overlap = single(tokens, 'overlap-minutes');
  if (overlap !== undefined) {
    if (action !== 'Rotate') throw new UsageError('--overlap-minutes goes with svc keys rotate');
    if (!/^\d+$/.test(overlap) || Number(overlap) > 10080) throw new UsageError('--overlap-minutes must be a whole number of minutes from 0 to 10080');
    request.overlapMinutes = Number(overlap);
  }
  const at = single(tokens, 'at');
  if (action === 'Expire') {
    if (at === undefined) throw new UsageError("svc keys expire needs --at (an ISO timestamp such as 2027-01-31T00:00:00Z, or 'never')");
    request.expiresAt = at.toLowerCase() === 'never' ? null : isoTimestamp("--at (or 'never')", at);
  } else if (at !== undefined) {
    throw new UsageError('--at goes with svc keys expire');
  }
  return { kind: 'keys-manage', request, transport: keysTransport(tokens) };
}

function parseKeysCommand(argv: string[]): KeysCreateCommand | KeysManageCommand {
  const [first] = argv;
  const action = first !== undefined && Object.hasOwn(KEY_ACTIONS, first) ? KEY_ACTIONS[first as keyof typeof KEY_ACTIONS] : undefined;
  if (action !== undefined) return parseKeysManageCommand(action, argv);
  const tokens = tokenize(argv, KEYS_CREATE_FLAGS);
  const [subcommand, ...rest] = tokens.positionals;
  if (subcommand !== 'create') throw new UsageError(`unknown keys command '${subcommand ?? ''}'; expected create, list, disable, enable, delete, rotate or expire`);
  if (rest.length > 0) throw new UsageError(`unexpected argument '${rest.join(' ')}'`);
  const operationsText = single(tokens, 'operations');
  if (operationsText === undefined) throw new UsageError('svc keys create needs --operations (names separated by commas, or *)');
  const description = single(tokens, 'description');
  const expiresAtText = single(tokens, 'expires-at');
  const transport = keysTransport(tokens);
  if (expiresAtText !== undefined && transport.kind === 'bus') {
    throw new UsageError('--expires-at works over the signed API; on the bus, create the key and then run svc keys expire --over-bus');
  }
  const replications = (single(tokens, 'replications') ?? 'own').toLowerCase();
  if (replications !== 'own' && replications !== 'all') throw new UsageError("--replications must be 'own' (the replications the key creates) or 'all'");
  return {
    kind: 'keys-create',
    allowedOperations: parseAllowedOperations(operationsText),
    replicationScope: replications === 'all' ? 'All' : 'Own',
    ...(description !== undefined && { description }),
    ...(expiresAtText !== undefined && { expiresAt: isoTimestamp('--expires-at', expiresAtText) }),
    transport,
  };
}

/** Parses the arguments after `svc`. Throws UsageError for anything it cannot make sense of. */
export function parseArgs(argv: string[]): CliCommand {
  if (isHelpRequest(argv)) return { kind: 'help' };
  if (argv.length === 0) throw new UsageError('no command given');
  if (argv[0] === 'keys') return parseKeysCommand(argv.slice(1));
  return parseOperationCommand(argv);
}
