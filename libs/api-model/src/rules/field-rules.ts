import { ACCESS_TYPES, RETENTION_PERIODS, SCD_TYPES } from '@svc/contracts';
import { warehouseEndpointOf } from '@svc/engines';
import { fieldLabel } from '../field-label';
import { oneOf } from './scalar-rules';
import { hasControlCharacter, textRule } from './text-rules';

export const retentionPeriod = oneOf(RETENTION_PERIODS);
export const accessType = oneOf(ACCESS_TYPES);
export const scdType = oneOf(SCD_TYPES);

/** Connection strings carry passwords: only their presence is checked here; Create tries them for real. */
export const connectionString = textRule({ secret: true });
export const password = textRule({ secret: true });
export const secretKey = textRule({ secret: true });
const ACCESS_KEY_RULE = 'An access key has no spaces or control characters';
export const accessKey = textRule({
  secret: true,
  check: (text) => (/[\s\p{Cc}]/u.test(text) ? ACCESS_KEY_RULE : null),
  rule: ACCESS_KEY_RULE,
});

/** Database, schema and user names of the warehouse: Redshift identifiers are at most 127 bytes. */
const IDENTIFIER_RULE = 'A name is 1-127 bytes without control characters';
export const warehouseIdentifier = textRule({
  check: (text) => (hasControlCharacter(text) || Buffer.byteLength(text) > 127 ? IDENTIFIER_RULE : null),
  rule: IDENTIFIER_RULE,
});

const ACCOUNT_ID_RULE = 'An AccountId is 12 digits';
export const accountId = textRule({
  check: (text) => (/^\d{12}$/.test(text) ? null : ACCOUNT_ID_RULE),
  rule: ACCOUNT_ID_RULE,
});

/** IAM role names (optionally under a path) as they appear in `arn:<partition>:iam::<AccountId>:role/<RoleName>` (contracts' iamRoleArn). */
const ROLE_NAME_RULE = "A role name is 1-64 characters of letters, digits and '+=,.@_-', optionally after a path ending in '/'";
export const roleName = textRule({
  check: (text) => (/^(?:[\w+=,.@-]+\/)*[\w+=,.@-]{1,64}$/.test(text) ? null : ROLE_NAME_RULE),
  rule: ROLE_NAME_RULE,
});

const REGION_RULE = 'A region is written like us-east-1';
export const regionEndpoint = textRule({
  normalise: (text) => text.toLowerCase(),
  check: (text) => (/^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/.test(text) ? null : REGION_RULE),
  rule: `${REGION_RULE} (any case)`,
});

/** Bucket naming rules of S3 (general purpose buckets). */
const BUCKET_NAME_RULES = {
  characters: "A bucket name is 3-63 characters of a-z, 0-9, '.', '-'",
  ends: 'A bucket name starts and ends with a letter or digit',
  dots: "A bucket name has no '..'",
  address: 'A bucket name is not an IP address',
  reserved: "A bucket name does not start with 'xn--' or 'sthree-' nor end with '-s3alias' or '--ol-s3'",
};
export const bucketName = textRule({ check: bucketNameProblem, rule: `${Object.values(BUCKET_NAME_RULES).join('. ')}.` });

function bucketNameProblem(name: string): string | null {
  if (!/^[a-z0-9.-]{3,63}$/.test(name)) return BUCKET_NAME_RULES.characters;
  if (!/^[a-z0-9].*[a-z0-9]$/.test(name)) return BUCKET_NAME_RULES.ends;
  if (name.includes('..')) return BUCKET_NAME_RULES.dots;
  if (/^\d{1,3}(?:\.\d{1,3}){3}$/.test(name)) return BUCKET_NAME_RULES.address;
  if (/^(?:xn--|sthree-)/.test(name) || /(?:-s3alias|--ol-s3)$/.test(name)) return BUCKET_NAME_RULES.reserved;
  return null;
}

const MAX_FOLDER_LENGTH = 512;

/** A key prefix in the bucket, path-like (`/replications/sales`); a leading slash is allowed. */
export const bucketFolderName = textRule({
  rule: `A key prefix in the bucket such as /replications/sales: no backslashes, no '..' segments, at most ${MAX_FOLDER_LENGTH} characters`,
  check: (path) => {
    if (path.includes('\\') || hasControlCharacter(path)) return 'A folder name has no backslashes or control characters';
    if (path.split('/').includes('..')) return "A folder name has no '..' segments";
    if (path.length > MAX_FOLDER_LENGTH) return `A folder name is at most ${MAX_FOLDER_LENGTH} characters`;
    return null;
  },
});

const WAREHOUSE_URL_SHAPE = 'A warehouse URL is host:port, postgres://host:port/database or redshift://host:port';
/** The only URL parameters the warehouse connection reads (TLS); any other could smuggle a credential in. */
const WAREHOUSE_URL_PARAMETERS: ReadonlySet<string> = new Set(['sslmode', 'ssl']);

/**
 * The warehouse endpoint (DESIGN §1), in the one grammar every part of the service reads it with
 * (`warehouseEndpointOf`): a bare `host:port` or `redshift://host:port` is Redshift, `postgres://host:port/...`
 * is PostgreSQL. The URL is a public setting (stored in the clear, shown by
 * Describe), so it must not carry credentials: those are Username and Password. A refused URL may hold a
 * password all the same, so it is never quoted back.
 */
export const warehouseUrl = textRule({
  secret: true,
  check: (text) => warehouseUrlProblem(text.trim()),
  rule: `${WAREHOUSE_URL_SHAPE}; no user name or password (those are Username and Password), no parameters but ${[...WAREHOUSE_URL_PARAMETERS].join(' and ')}`,
});

function warehouseUrlProblem(text: string): string | null {
  const endpoint = warehouseEndpointOf(text);
  if (endpoint === null) return /@/.test(text) ? credentialsInUrl() : WAREHOUSE_URL_SHAPE;
  if (endpoint.hasCredentials) return credentialsInUrl();
  const unknown = [...endpoint.params.keys()].filter((name) => !WAREHOUSE_URL_PARAMETERS.has(name));
  if (unknown.length) return 'A warehouse URL takes only the sslmode and ssl parameters; user and password belong in Username and Password';
  return null;
}

function credentialsInUrl(): string {
  return `A warehouse URL must not carry a user name or password: give them in ${fieldLabel(['warehouse', 'username'])} and ${fieldLabel(['warehouse', 'password'])}`;
}

const MAX_NAME_CHARACTERS = 128;

/** Friendly job name (seed §2.2): 1-128 printable characters. */
export const replicationName = textRule({
  rule: `1-${MAX_NAME_CHARACTERS} printable characters`,
  check: (name) => {
    if (/[\p{Cc}\p{Cf}\p{Cs}]/u.test(name)) return 'A replication name has only printable characters';
    if ([...name].length > MAX_NAME_CHARACTERS) return `A replication name is 1-${MAX_NAME_CHARACTERS} characters`;
    return null;
  },
});
