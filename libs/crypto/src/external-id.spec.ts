import { ExternalIdIssuer } from './external-id';

const masterKey = Buffer.alloc(32, 7);
const binding = { ownerAccessKeyId: 'SVCKEYALICE000000001', accountId: '123456789012', roleName: 'ReplicationBucketRole' };

describe('ExternalIdIssuer', () => {
  const issuer = new ExternalIdIssuer(masterKey);

  it('issues the same id again for the same owner and role, within STS limits', () => {
    const id = issuer.issue(binding);
    expect(id).toMatch(/^svc-[0-9a-f]{32}$/);
    expect(issuer.issue({ ...binding })).toBe(id);
    expect(new ExternalIdIssuer(Buffer.from(masterKey)).issue(binding)).toBe(id);
  });

  it('issues another id to another access key naming the same role (the confused-deputy protection)', () => {
    expect(issuer.issue({ ...binding, ownerAccessKeyId: 'SVCKEYMALLORY0000001' })).not.toBe(issuer.issue(binding));
  });

  it('issues another id for another account or role, and under another master key', () => {
    const id = issuer.issue(binding);
    expect(issuer.issue({ ...binding, accountId: '210987654321' })).not.toBe(id);
    expect(issuer.issue({ ...binding, roleName: 'OtherRole' })).not.toBe(id);
    expect(new ExternalIdIssuer(Buffer.alloc(32, 8)).issue(binding)).not.toBe(id);
  });

  it('keeps the parts apart: moving characters between them changes the id', () => {
    expect(issuer.issue({ ownerAccessKeyId: 'AB', accountId: '1', roleName: 'R' })).not.toBe(issuer.issue({ ownerAccessKeyId: 'A', accountId: 'B1', roleName: 'R' }));
  });
});
