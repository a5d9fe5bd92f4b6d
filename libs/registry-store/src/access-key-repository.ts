import type { Pool, PoolClient } from 'pg';
import type { SecretBox } from '@svc/crypto';
import { ERROR_DETAILS_PERMISSION } from '@svc/contracts';
import { accessKeyPreviousSecretAt, accessKeySecretAt } from './secret-locations';
import { inTransaction } from './control-database';
import { MAX_CHAIN_LENGTH, chainOf, signs, standingOf, type DisabledBy, type KeyLink, type KeyStanding, type KeyWidth } from './key-chain';
import { judgeChange, type AccessKeyChange, type AccessKeyChangeRefusal, type KeyActor, type KeyWrite } from './key-change';

/** Which replications a key acts on: those it created, or every one (and the service-wide operations). */
export type ReplicationScope = 'Own' | 'All';

export interface NewAccessKey {
  accessKeyId: string;
  secretKey: string;
  /** Operation names, or `*` for all. */
  allowedOperations: string[];
  replicationScope: ReplicationScope;
  description: string;
  /** The key that created it over the API; null for keys an operator made on the bus. */
  createdBy?: string | null;
  expiresAt?: Date | null;
}

export interface AccessKeySecret {
  secretKey: string;
  allowedOperations: string[];
  replicationScope: ReplicationScope;
  /** The secret a rotation replaced, while its overlap lasts: it still signs. */
  previousSecretKey?: string;
  /**
   * Why the key no longer signs, when it does not (it, or a key it was created under, was disabled, or expired): its
   * signature is still checked, so that only its holder learns why it is refused.
   */
  stopped?: 'Disabled' | 'Expired';
}

/** A key as operators see it: never a secret. */
export interface AccessKeyListing {
  accessKeyId: string;
  allowedOperations: string[];
  replicationScope: ReplicationScope;
  description: string;
  bootstrap: boolean;
  /** Disabled itself (by `disabledBy`); see `effective` for what its creators leave it. */
  disabled: boolean;
  disabledBy: DisabledBy | null;
  createdAt: Date;
  createdBy: string | null;
  /** Its own expiry; see `effective` for its creators'. */
  expiresAt: Date | null;
  /** Whether it signs given its chain of creators, and until when (key-chain). */
  effective: KeyStanding;
  /** Until when the secret a rotation replaced still signs; null when there is none. */
  previousSecretValidUntil: Date | null;
}

/** A change made, refused by a rule of the signed API (key-change), or of a key that does not exist. */
export type AccessKeyChangeOutcome = 'changed' | 'missing' | AccessKeyChangeRefusal;

export interface AccessKeyStore {
  /**
   * Creates or replaces the key configured at boot (SVC_BOOTSTRAP_*), allowed every operation, and deletes
   * an earlier bootstrap key of another id (keys made by `svc keys create` stay).
   */
  upsertBootstrap(accessKeyId: string, secretKey: string): Promise<void>;
  /** false when the id is already taken. */
  create(key: NewAccessKey): Promise<boolean>;
  /** The secret of a key that signs; null for one that does not exist or (unless `withStopped`) no longer signs. */
  find(accessKeyId: string, options?: { withStopped?: boolean }): Promise<AccessKeySecret | null>;
  /** The replications the key may act on; null for a key that does not exist (any more), is disabled or expired, or whose creators are. */
  scopeOf(accessKeyId: string): Promise<ReplicationScope | null>;
  /** Whether a usable key is allowed ERROR_DETAILS_PERMISSION (or `*`): it may read what servers said of failures. */
  mayReadErrorDetails(accessKeyId: string): Promise<boolean>;
  list(): Promise<AccessKeyListing[]>;
  /** One key as list() shows it; null when no such key exists. */
  get(accessKeyId: string): Promise<AccessKeyListing | null>;
  /** Applies `change` when `actor` may make it (judgeChange), atomically with every rule it is held to. */
  change(accessKeyId: string, change: AccessKeyChange, actor: KeyActor): Promise<AccessKeyChangeOutcome>;
  /** A new secret; the current one keeps signing until `previousValidUntil`. false when no such key exists. */
  rotate(accessKeyId: string, newSecretKey: string, previousValidUntil: Date): Promise<boolean>;
}

const UNIQUE_VIOLATION = '23505';
export const BOOTSTRAP_KEY_DESCRIPTION = 'bootstrap key from SVC_BOOTSTRAP_ACCESS_KEY_ID';

export class AccessKeyRepository implements AccessKeyStore {
  constructor(
    private readonly pool: Pool,
    private readonly box: SecretBox,
  ) {}

  async upsertBootstrap(accessKeyId: string, secretKey: string): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      // Replacing the bootstrap key is the operator's doing, not a deletion the keys it created should follow: they move to the new one.
      await client.query(
        'UPDATE access_keys SET created_by_access_key_id = $1 WHERE created_by_access_key_id IN (SELECT access_key_id FROM access_keys WHERE bootstrap AND access_key_id <> $1)',
        [accessKeyId],
      );
      await client.query('DELETE FROM access_keys WHERE bootstrap AND access_key_id <> $1', [accessKeyId]);
      await client.query(
        `INSERT INTO access_keys (access_key_id, secret, allowed_operations, replication_scope, description, bootstrap) VALUES ($1, $2, $3, 'All', $4, true)
         ON CONFLICT (access_key_id) DO UPDATE SET secret = EXCLUDED.secret, allowed_operations = EXCLUDED.allowed_operations, replication_scope = 'All', bootstrap = true,
           created_by_access_key_id = NULL`,
        [accessKeyId, this.box.seal(secretKey, accessKeySecretAt(accessKeyId)), ['*'], BOOTSTRAP_KEY_DESCRIPTION],
      );
    });
  }

  async create(key: NewAccessKey): Promise<boolean> {
    try {
      await this.pool.query(
        `INSERT INTO access_keys (access_key_id, secret, allowed_operations, replication_scope, description, created_by_access_key_id, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          key.accessKeyId,
          this.box.seal(key.secretKey, accessKeySecretAt(key.accessKeyId)),
          key.allowedOperations,
          key.replicationScope,
          key.description,
          key.createdBy ?? null,
          key.expiresAt ?? null,
        ],
      );
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) return false;
      throw error;
    }
  }

  async find(accessKeyId: string, options: { withStopped?: boolean } = {}): Promise<AccessKeySecret | null> {
    const key = await this.get(accessKeyId);
    if (key === null) return null;
    const stopped = stoppedOf(key.effective);
    if (stopped !== undefined && options.withStopped !== true) return null;
    const result = await this.pool.query<{ secret: Buffer; allowed_operations: string[]; replication_scope: ReplicationScope; previous_secret: Buffer | null }>(
      `SELECT secret, allowed_operations, replication_scope,
              CASE WHEN previous_valid_until > now() THEN previous_secret END AS previous_secret
         FROM access_keys WHERE access_key_id = $1`,
      [accessKeyId],
    );
    const row = result.rows[0];
    if (!row) return null;
    return {
      secretKey: this.box.open(row.secret, accessKeySecretAt(accessKeyId)),
      allowedOperations: row.allowed_operations,
      replicationScope: row.replication_scope,
      ...(row.previous_secret !== null && { previousSecretKey: this.box.open(row.previous_secret, accessKeyPreviousSecretAt(accessKeyId)) }),
      ...(stopped !== undefined && { stopped }),
    };
  }

  async scopeOf(accessKeyId: string): Promise<ReplicationScope | null> {
    return (await this.signing(accessKeyId))?.replicationScope ?? null;
  }

  async mayReadErrorDetails(accessKeyId: string): Promise<boolean> {
    const allowed = (await this.signing(accessKeyId))?.allowedOperations ?? [];
    return allowed.includes('*') || allowed.includes(ERROR_DETAILS_PERMISSION);
  }

  async list(): Promise<AccessKeyListing[]> {
    const rows = (await this.pool.query<ListingRow>(`${LISTING_SELECT} ORDER BY created_at, access_key_id`)).rows;
    const links = new Map(rows.map((row) => [row.access_key_id, linkOf(row)]));
    return rows.map((row) => listingOf(row, standingOf(chainOf(row.access_key_id, (id) => links.get(id)))));
  }

  async get(accessKeyId: string): Promise<AccessKeyListing | null> {
    const chain = (await this.pool.query<ListingRow>(CHAIN_SELECT, [accessKeyId, MAX_CHAIN_LENGTH])).rows;
    const row = chain[0];
    return row ? listingOf(row, standingOf(chain.map(linkOf))) : null;
  }

  async change(accessKeyId: string, change: AccessKeyChange, actor: KeyActor): Promise<AccessKeyChangeOutcome> {
    return inTransaction(this.pool, async (client) => {
      // Every key locked: the rules read other keys (the last All key, the actor's own expiry), and two changes judged
      // at once could each pass alone and not together.
      const rows = (await client.query<ListingRow>(`${LISTING_SELECT} FOR UPDATE`)).rows;
      const verdict = judgeChange(new Map(rows.map((row) => [row.access_key_id, linkOf(row)])), accessKeyId, change, actor, new Date());
      if (verdict.verdict === 'missing') return 'missing';
      if (verdict.verdict === 'refused') return verdict.refusal;
      await write(client, verdict.write);
      return 'changed';
    });
  }

  /** The key when it signs: it exists, and neither it nor a creator up its chain is disabled, expired or gone. */
  private async signing(accessKeyId: string): Promise<AccessKeyListing | null> {
    const key = await this.get(accessKeyId);
    return key !== null && signs(key.effective, new Date()) ? key : null;
  }

  async rotate(accessKeyId: string, newSecretKey: string, previousValidUntil: Date): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const current = await client.query<{ secret: Buffer }>('SELECT secret FROM access_keys WHERE access_key_id = $1 FOR UPDATE', [accessKeyId]);
      const row = current.rows[0];
      if (!row) return false;
      const previous = this.box.open(row.secret, accessKeySecretAt(accessKeyId));
      await client.query('UPDATE access_keys SET secret = $2, previous_secret = $3, previous_valid_until = $4 WHERE access_key_id = $1', [
        accessKeyId,
        this.box.seal(newSecretKey, accessKeySecretAt(accessKeyId)),
        this.box.seal(previous, accessKeyPreviousSecretAt(accessKeyId)),
        previousValidUntil,
      ]);
      return true;
    });
  }
}

async function write(client: PoolClient, change: KeyWrite): Promise<void> {
  switch (change.kind) {
    case 'delete':
      await client.query('DELETE FROM access_keys WHERE access_key_id = ANY ($1)', [change.accessKeyIds]);
      return;
    case 'status':
      await client.query('UPDATE access_keys SET disabled = $2, disabled_by_access_key_id = $3, disabled_by_width = $4 WHERE access_key_id = $1', [
        change.accessKeyId,
        change.disabled,
        change.disabledBy?.accessKeyId ?? null,
        change.disabledBy?.width ?? null,
      ]);
      return;
    case 'expiry':
      await client.query('UPDATE access_keys SET expires_at = $2 WHERE access_key_id = $1', [change.accessKeyId, change.expiresAt]);
      return;
  }
}

interface ListingRow {
  access_key_id: string;
  allowed_operations: string[];
  replication_scope: ReplicationScope;
  description: string;
  bootstrap: boolean;
  disabled: boolean;
  disabled_by_access_key_id: string | null;
  disabled_by_width: KeyWidth | null;
  created_at: Date;
  created_by_access_key_id: string | null;
  expires_at: Date | null;
  previous_valid_until: Date | null;
}

const LISTED_COLUMNS = [
  'access_key_id',
  'allowed_operations',
  'replication_scope',
  'description',
  'bootstrap',
  'disabled',
  'disabled_by_access_key_id',
  'disabled_by_width',
  'created_at',
  'created_by_access_key_id',
  'expires_at',
];

/** What list() shows of the keys of `table`: never a secret. */
function listingColumns(table: string): string {
  const previous = `${table}.previous_valid_until`;
  return `${LISTED_COLUMNS.map((column) => `${table}.${column}`).join(', ')}, CASE WHEN ${previous} > now() THEN ${previous} END AS previous_valid_until`;
}

const LISTING_SELECT = `SELECT ${listingColumns('access_keys')} FROM access_keys`;

/** One key ($1) and its creators up the chain, the key first; at most $2 of them, so that a loop ends. */
const CHAIN_SELECT = `WITH RECURSIVE chain AS (
  SELECT ${listingColumns('held')}, 1 AS depth FROM access_keys held WHERE held.access_key_id = $1
  UNION ALL
  SELECT ${listingColumns('creator')}, chain.depth + 1 FROM access_keys creator JOIN chain ON creator.access_key_id = chain.created_by_access_key_id
   WHERE chain.depth < $2
)
SELECT * FROM chain ORDER BY depth`;

function linkOf(row: ListingRow): KeyLink {
  return {
    accessKeyId: row.access_key_id,
    createdBy: row.created_by_access_key_id,
    replicationScope: row.replication_scope,
    disabled: row.disabled,
    disabledBy: disabledByOf(row),
    expiresAt: row.expires_at,
  };
}

function disabledByOf(row: ListingRow): DisabledBy | null {
  return row.disabled && row.disabled_by_width !== null ? { accessKeyId: row.disabled_by_access_key_id, width: row.disabled_by_width } : null;
}

function listingOf(row: ListingRow, effective: KeyStanding): AccessKeyListing {
  return {
    accessKeyId: row.access_key_id,
    allowedOperations: row.allowed_operations,
    replicationScope: row.replication_scope,
    description: row.description,
    bootstrap: row.bootstrap,
    disabled: row.disabled,
    disabledBy: disabledByOf(row),
    createdAt: row.created_at,
    createdBy: row.created_by_access_key_id,
    expiresAt: row.expires_at,
    effective,
    previousSecretValidUntil: row.previous_valid_until,
  };
}

/** Why a key's standing keeps it from signing now; undefined while it signs. */
export function stoppedOf(standing: KeyStanding, now = new Date()): AccessKeySecret['stopped'] {
  if (signs(standing, now)) return undefined;
  return standing.disabled ? 'Disabled' : 'Expired';
}
