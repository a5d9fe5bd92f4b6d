const KEY_BYTES = 32;
const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const BASE64_KEY = /^[A-Za-z0-9+/_-]{43}=?$/;

export class MasterKeyError extends Error {
  constructor() {
    // The rejected text is never part of the message: it may be a real key with a typo.
    super('master key must be 64 hexadecimal characters or the base64 encoding of 32 bytes');
    this.name = 'MasterKeyError';
  }
}

/** Reads a 256-bit key written as 64 hex characters or as base64 (standard or url-safe) of 32 bytes. */
export function parseMasterKey(text: string): Buffer {
  const trimmed = text.trim();
  if (HEX_KEY.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (BASE64_KEY.test(trimmed)) {
    const key = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (key.length === KEY_BYTES) return key;
  }
  throw new MasterKeyError();
}

export const MASTER_KEY_BYTES = KEY_BYTES;
