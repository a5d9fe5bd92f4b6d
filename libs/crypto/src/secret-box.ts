import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { MASTER_KEY_BYTES } from './master-key';

/** Format 1 (before key ids): `1 | iv (12) | tag (16) | ciphertext`, no associated data. Still opened. */
const UNBOUND_FORMAT = 1;
/** Format 2: `2 | key id (8) | iv (12) | tag (16) | ciphertext`, bound to its location (see SecretLocation). */
const BOUND_FORMAT = 2;
const KEY_ID_BYTES = 8;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const UNBOUND_HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;
const BOUND_PREFIX_BYTES = 1 + KEY_ID_BYTES;
const BOUND_HEADER_BYTES = BOUND_PREFIX_BYTES + IV_BYTES + TAG_BYTES;
const KEY_ID_LABEL = 'svc secret-box key id';

export class SecretBoxError extends Error {
  constructor(
    message: string,
    /** The key id a value was sealed under when no configured key has it. */
    readonly missingKeyId?: string,
  ) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

/** Where a sealed value is stored: a value copied anywhere else does not open. */
export interface SecretLocation {
  table: string;
  rowId: string;
  field: string;
}

/**
 * A key's public name: a keyed hash of a fixed label, so it tells which key sealed a value without
 * revealing anything about the key. Hex of 8 bytes.
 */
export function masterKeyId(key: Buffer): string {
  return createHmac('sha256', key).update(KEY_ID_LABEL).digest().subarray(0, KEY_ID_BYTES).toString('hex');
}

/**
 * AES-256-GCM encryption of short secrets at rest under a keyring: the current master key seals, previous
 * keys (during a rotation) still open. A sealed value names its key id and is authenticated together with
 * its location, so it opens only where it was written.
 */
export class SecretBox {
  private readonly currentKey: Buffer;
  readonly currentKeyId: string;
  private readonly keysById = new Map<string, Buffer>();

  constructor(currentKey: Buffer, previousKeys: readonly Buffer[] = []) {
    for (const key of [currentKey, ...previousKeys]) {
      if (key.length !== MASTER_KEY_BYTES) throw new SecretBoxError(`key must be ${MASTER_KEY_BYTES} bytes`);
      const id = masterKeyId(key);
      const known = this.keysById.get(id);
      if (known && !known.equals(key)) throw new SecretBoxError(`two configured keys share the key id ${id}`);
      this.keysById.set(id, Buffer.from(key));
    }
    this.currentKey = Buffer.from(currentKey);
    this.currentKeyId = masterKeyId(currentKey);
  }

  seal(plaintext: string, location: SecretLocation): Buffer {
    const prefix = Buffer.concat([Buffer.from([BOUND_FORMAT]), Buffer.from(this.currentKeyId, 'hex')]);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.currentKey, iv);
    cipher.setAAD(associatedData(prefix, location));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([prefix, iv, cipher.getAuthTag(), ciphertext]);
  }

  /**
   * Throws SecretBoxError when no configured key has the value's key id (the error names it), or when the
   * value was altered in any byte or was sealed for another location.
   */
  open(sealed: Buffer, location: SecretLocation): string {
    const where = describeLocation(location);
    if (sealed.length < 1) throw new SecretBoxError(`sealed value of ${where} is truncated`);
    if (sealed[0] === UNBOUND_FORMAT) return this.openUnbound(sealed, where);
    if (sealed[0] !== BOUND_FORMAT) throw new SecretBoxError(`sealed value of ${where} has an unknown format version`);
    if (sealed.length < BOUND_HEADER_BYTES) throw new SecretBoxError(`sealed value of ${where} is truncated`);
    const keyId = sealed.subarray(1, BOUND_PREFIX_BYTES).toString('hex');
    const key = this.keysById.get(keyId);
    if (!key) {
      throw new SecretBoxError(
        `sealed value of ${where} is under master key id ${keyId}, which is not configured (current key id ${this.currentKeyId}, ${this.previousKeyIds()})`,
        keyId,
      );
    }
    const iv = sealed.subarray(BOUND_PREFIX_BYTES, BOUND_PREFIX_BYTES + IV_BYTES);
    const tag = sealed.subarray(BOUND_PREFIX_BYTES + IV_BYTES, BOUND_HEADER_BYTES);
    const plaintext = decrypt(key, iv, tag, sealed.subarray(BOUND_HEADER_BYTES), associatedData(sealed.subarray(0, BOUND_PREFIX_BYTES), location));
    if (plaintext === null) throw new SecretBoxError(`sealed value of ${where} cannot be opened: altered, or sealed for another place`);
    return plaintext;
  }

  /** True for a value that is not yet in the current format under the current key: sealing it again is due. */
  needsReseal(sealed: Buffer): boolean {
    return sealed[0] !== BOUND_FORMAT || sealed.subarray(1, BOUND_PREFIX_BYTES).toString('hex') !== this.currentKeyId;
  }

  private previousKeyIds(): string {
    const previous = [...this.keysById.keys()].filter((id) => id !== this.currentKeyId);
    return previous.length ? `previous key ids ${previous.join(', ')}` : 'no previous key';
  }

  /** Format 1 names no key: each configured key is tried. */
  private openUnbound(sealed: Buffer, where: string): string {
    if (sealed.length < UNBOUND_HEADER_BYTES) throw new SecretBoxError(`sealed value of ${where} is truncated`);
    const iv = sealed.subarray(1, 1 + IV_BYTES);
    const tag = sealed.subarray(1 + IV_BYTES, UNBOUND_HEADER_BYTES);
    for (const key of this.keysById.values()) {
      const plaintext = decrypt(key, iv, tag, sealed.subarray(UNBOUND_HEADER_BYTES), null);
      if (plaintext !== null) return plaintext;
    }
    throw new SecretBoxError(
      `sealed value of ${where} (format 1, before key ids) opens under none of the configured master keys (ids ${[...this.keysById.keys()].join(', ')}): wrong key or altered data`,
    );
  }
}

function associatedData(prefix: Buffer, location: SecretLocation): Buffer {
  // JSON keeps the parts apart whatever characters they hold.
  return Buffer.concat([prefix, Buffer.from(JSON.stringify([location.table, location.rowId, location.field]), 'utf8')]);
}

function decrypt(key: Buffer, iv: Buffer, tag: Buffer, ciphertext: Buffer, aad: Buffer | null): string | null {
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAuthTag(tag);
  if (aad) decipher.setAAD(aad);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

function describeLocation(location: SecretLocation): string {
  return `${location.table}.${location.field} of ${location.rowId}`;
}
