import { randomBytes } from 'node:crypto';
import { SecretBox, SecretBoxError } from './secret-box';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));
  const secret = 'postgres://svc:hunter2@db.internal:5432/app';

  it('round-trips text, including non-ASCII and empty strings', () => {
    for (const text of [secret, 'pässwörd ✓', '']) expect(box.open(box.seal(text))).toBe(text);
  });

  it('does not contain the plaintext and uses a fresh IV per seal', () => {
    const first = box.seal(secret);
    const second = box.seal(secret);
    expect(first.includes(Buffer.from('hunter2'))).toBe(false);
    expect(first.equals(second)).toBe(false);
    expect(first[0]).toBe(1);
    expect(first.length).toBe(1 + 12 + 16 + Buffer.byteLength(secret));
  });

  it.each([
    ['the ciphertext', (sealed: Buffer) => sealed.length - 1],
    ['the auth tag', () => 1 + 12],
    ['the IV', () => 1],
  ])('rejects a value whose %s was altered', (_label, position) => {
    const sealed = box.seal(secret);
    sealed[position(sealed)] ^= 0x01;
    expect(() => box.open(sealed)).toThrow(SecretBoxError);
  });

  it('rejects a value sealed under another key', () => {
    const other = new SecretBox(randomBytes(32));
    expect(() => other.open(box.seal(secret))).toThrow('wrong key or altered data');
  });

  it('rejects truncated values and unknown format versions', () => {
    expect(() => box.open(Buffer.alloc(10))).toThrow('truncated');
    const sealed = box.seal(secret);
    sealed[0] = 2;
    expect(() => box.open(sealed)).toThrow('format version');
  });

  it('requires a 32-byte key', () => {
    expect(() => new SecretBox(randomBytes(16))).toThrow('32 bytes');
  });
});
