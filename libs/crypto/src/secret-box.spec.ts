import { createCipheriv, randomBytes } from 'node:crypto';
import { SecretBox, SecretBoxError, masterKeyId, type SecretLocation } from './secret-box';

/** What SecretBox wrote before key ids and associated data (format 1). */
function sealInFormat1(key: Buffer, plaintext: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([1]), iv, cipher.getAuthTag(), ciphertext]);
}

describe('SecretBox', () => {
  const key = randomBytes(32);
  const box = new SecretBox(key);
  const secret = 'postgres://svc:hunter2@db.internal:5432/app';
  const here: SecretLocation = { table: 'replications', rowId: '6f1c0b7e-5f7a-4a59-9b0c-2d4a1e0f3c11', field: 'secrets' };

  it('round-trips text, including non-ASCII and empty strings', () => {
    for (const text of [secret, 'pässwörd ✓', '']) expect(box.open(box.seal(text, here), here)).toBe(text);
  });

  it('writes format 2 with the key id, never the plaintext, and a fresh IV per seal', () => {
    const first = box.seal(secret, here);
    const second = box.seal(secret, here);
    expect(first.includes(Buffer.from('hunter2'))).toBe(false);
    expect(first.equals(second)).toBe(false);
    expect(first[0]).toBe(2);
    expect(first.subarray(1, 9).toString('hex')).toBe(masterKeyId(key));
    expect(first.length).toBe(1 + 8 + 12 + 16 + Buffer.byteLength(secret));
  });

  it.each([
    ['another row', { ...here, rowId: '0b8f7d3e-1c2a-4e5f-8a9b-7c6d5e4f3a21' }],
    ['another field', { ...here, field: 'secret' }],
    ['another table', { ...here, table: 'access_keys' }],
    ['a location whose parts run together differently', { table: 'replications.secrets', rowId: here.rowId, field: '' }],
  ])('does not open a value moved to %s', (_label, elsewhere: SecretLocation) => {
    expect(() => box.open(box.seal(secret, here), elsewhere)).toThrow('sealed for another place');
  });

  it.each([
    ['the ciphertext', (sealed: Buffer) => sealed.length - 1],
    ['the auth tag', () => 1 + 8 + 12],
    ['the IV', () => 1 + 8],
  ])('rejects a value whose %s was altered', (_label, position) => {
    const sealed = box.seal(secret, here);
    sealed[position(sealed)] ^= 0x01;
    expect(() => box.open(sealed, here)).toThrow(SecretBoxError);
  });

  it('names the missing key id, and never the key, for a value sealed under a key it does not hold', () => {
    const otherKey = randomBytes(32);
    const other = new SecretBox(otherKey);
    const sealed = new SecretBox(key).seal(secret, here);
    let thrown: unknown;
    try {
      other.open(sealed, here);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SecretBoxError);
    expect((thrown as SecretBoxError).missingKeyId).toBe(masterKeyId(key));
    expect((thrown as Error).message).toContain(`master key id ${masterKeyId(key)}, which is not configured (current key id ${masterKeyId(otherKey)}`);
    for (const material of [key.toString('hex'), key.toString('base64')]) expect((thrown as Error).message).not.toContain(material);
  });

  it('opens under a previous key, seals under the current one, and says which values need sealing again', () => {
    const newKey = randomBytes(32);
    const rotating = new SecretBox(newKey, [key]);
    const underOldKey = box.seal(secret, here);
    expect(rotating.open(underOldKey, here)).toBe(secret);
    expect(rotating.needsReseal(underOldKey)).toBe(true);
    const resealed = rotating.seal(secret, here);
    expect(rotating.needsReseal(resealed)).toBe(false);
    expect(new SecretBox(newKey).open(resealed, here)).toBe(secret);
    expect(() => box.open(resealed, here)).toThrow(`master key id ${masterKeyId(newKey)}`);
  });

  it('still opens format-1 values (no key id, no location) under the current or a previous key, and marks them for sealing again', () => {
    const old = sealInFormat1(key, secret);
    expect(box.open(old, here)).toBe(secret);
    expect(box.needsReseal(old)).toBe(true);
    expect(new SecretBox(randomBytes(32), [key]).open(old, here)).toBe(secret);
    expect(() => new SecretBox(randomBytes(32)).open(old, here)).toThrow('format 1, before key ids');
  });

  it('rejects truncated values and unknown format versions', () => {
    expect(() => box.open(Buffer.alloc(10, 2), here)).toThrow('truncated');
    expect(() => box.open(Buffer.alloc(0), here)).toThrow('truncated');
    const sealed = box.seal(secret, here);
    sealed[0] = 3;
    expect(() => box.open(sealed, here)).toThrow('format version');
  });

  it('requires 32-byte keys', () => {
    expect(() => new SecretBox(randomBytes(16))).toThrow('32 bytes');
    expect(() => new SecretBox(randomBytes(32), [randomBytes(31)])).toThrow('32 bytes');
  });

  it('derives a stable key id that differs between keys', () => {
    expect(masterKeyId(key)).toBe(masterKeyId(Buffer.from(key)));
    expect(masterKeyId(key)).toMatch(/^[0-9a-f]{16}$/);
    expect(masterKeyId(randomBytes(32))).not.toBe(masterKeyId(key));
  });
});
