import { generateAccessKeyId, generateSecretKey } from './access-key-generator';

describe('access key generation', () => {
  it('makes ids of SVC plus 17 upper-case letters or digits, all different', () => {
    const ids = Array.from({ length: 200 }, () => generateAccessKeyId());
    for (const id of ids) expect(id).toMatch(/^SVC[A-Z0-9]{17}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('makes 40-character base64url secrets of 30 random bytes', () => {
    const secrets = Array.from({ length: 200 }, () => generateSecretKey());
    for (const secret of secrets) {
      expect(secret).toMatch(/^[A-Za-z0-9_-]{40}$/);
      expect(Buffer.from(secret, 'base64url')).toHaveLength(30);
    }
    expect(new Set(secrets).size).toBe(secrets.length);
  });
});
