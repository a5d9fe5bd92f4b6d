import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { MASTER_KEY_BYTES } from './master-key';

const FORMAT_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;

export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

/**
 * AES-256-GCM encryption of short secrets at rest. A sealed value is
 * `version (1 byte) | iv (12) | auth tag (16) | ciphertext`; the version byte lets a later format
 * (or key rotation) coexist with stored values.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== MASTER_KEY_BYTES) throw new SecretBoxError(`key must be ${MASTER_KEY_BYTES} bytes`);
    this.key = Buffer.from(key);
  }

  seal(plaintext: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([FORMAT_VERSION]), iv, cipher.getAuthTag(), ciphertext]);
  }

  /** Throws SecretBoxError when the value was sealed under another key or altered in any byte. */
  open(sealed: Buffer): string {
    if (sealed.length < HEADER_BYTES) throw new SecretBoxError('sealed value is truncated');
    if (sealed[0] !== FORMAT_VERSION) throw new SecretBoxError('sealed value has an unknown format version');
    const iv = sealed.subarray(1, 1 + IV_BYTES);
    const tag = sealed.subarray(1 + IV_BYTES, HEADER_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(sealed.subarray(HEADER_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('sealed value cannot be opened: wrong key or altered data');
    }
  }
}
