import { randomBytes } from 'node:crypto';
import { MasterKeyError, parseMasterKey } from './master-key';

describe('parseMasterKey', () => {
  const key = randomBytes(32);

  it.each([
    ['hex', key.toString('hex')],
    ['upper-case hex', key.toString('hex').toUpperCase()],
    ['base64', key.toString('base64')],
    ['base64url', key.toString('base64url')],
    ['padded by whitespace', `  ${key.toString('hex')}\n`],
  ])('accepts %s', (_label, text) => {
    expect(parseMasterKey(text).equals(key)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['short hex', key.toString('hex').slice(0, 62)],
    ['hex with a non-hex character', `${key.toString('hex').slice(0, 63)}g`],
    ['base64 of 31 bytes', randomBytes(31).toString('base64')],
    ['base64 of 33 bytes', randomBytes(33).toString('base64')],
    ['a passphrase', 'correct horse battery staple'],
  ])('rejects %s without echoing it', (_label, text) => {
    expect(() => parseMasterKey(text)).toThrow(MasterKeyError);
    try {
      parseMasterKey(text);
    } catch (error) {
      if (text.length > 0) expect((error as Error).message).not.toContain(text);
    }
  });
});
