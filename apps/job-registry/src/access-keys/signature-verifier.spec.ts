import { ErrorCode, type SignedCall } from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import { signedCallFor } from '@svc/testing';
import { InMemoryAccessKeyStore } from '../testing/in-memory-stores';
import { SIGNATURE_REFUSED_MESSAGE, SignatureVerifier, operationOfPath } from './signature-verifier';

describe('SignatureVerifier: the registry proves who calls, with secrets that never leave it', () => {
  const reader = { accessKeyId: 'SVCREADER', secretKey: 'reader-secret' };
  let keys: InMemoryAccessKeyStore;
  let verifier: SignatureVerifier;

  beforeEach(async () => {
    keys = new InMemoryAccessKeyStore();
    verifier = new SignatureVerifier(keys, { region: 'us-east-1', maxClockSkewMs: 900_000 }, new JsonLogger('job-registry', 'error', () => undefined));
    await keys.create({ ...reader, allowedOperations: ['ListWarehouseReplications'], replicationScope: 'Own', description: '' });
  });

  const check = (operation: string, signed: unknown) => verifier.checkSignature({ operation, signed });

  it('answers the key that signed and what it may call, never a secret or a key derived from one', async () => {
    const reply = await check('ListWarehouseReplications', signedCallFor('ListWarehouseReplications', '{}', reader));
    expect(reply).toEqual({ ok: true, value: { accessKeyId: 'SVCREADER', allowedOperations: ['ListWarehouseReplications'] } });
    expect(JSON.stringify(reply)).not.toMatch(/reader-secret|[0-9a-f]{64}/);
  });

  it('refuses an unknown key and a wrong secret with one answer', async () => {
    for (const key of [{ accessKeyId: 'SVCNOBODY', secretKey: 'x' }, { ...reader, secretKey: 'guessed' }]) {
      expect(await check('ListWarehouseReplications', signedCallFor('ListWarehouseReplications', '{}', key))).toEqual({
        ok: false,
        error: { code: ErrorCode.Forbidden, messages: [SIGNATURE_REFUSED_MESSAGE] },
      });
    }
  });

  it('tells the holder of a disabled key, and only its holder, that it is disabled (issue 40)', async () => {
    await keys.change('SVCREADER', { kind: 'status', disabled: true }, { kind: 'operator' });
    expect(await check('ListWarehouseReplications', signedCallFor('ListWarehouseReplications', '{}', reader))).toEqual({
      ok: false,
      error: {
        code: ErrorCode.Forbidden,
        messages: ['access key SVCREADER is disabled (itself, or the key it was created under): a key allowed UpdateAccessKey sets its Status to Active again'],
      },
    });
    // A wrong secret learns nothing of the key's state.
    expect(await check('ListWarehouseReplications', signedCallFor('ListWarehouseReplications', '{}', { ...reader, secretKey: 'guessed' }))).toEqual({
      ok: false,
      error: { code: ErrorCode.Forbidden, messages: [SIGNATURE_REFUSED_MESSAGE] },
    });
  });

  it('refuses an operation the key may not call, and a signature of another operation than the one asked', async () => {
    expect(await check('DeleteWarehouseReplication', signedCallFor('DeleteWarehouseReplication', '{}', reader))).toEqual({
      ok: false,
      error: { code: ErrorCode.Forbidden, messages: ['access key SVCREADER is not allowed to call DeleteWarehouseReplication'] },
    });
    expect(await check('DeleteWarehouseReplication', signedCallFor('ListWarehouseReplications', '{}', reader))).toEqual({
      ok: false,
      error: { code: ErrorCode.Forbidden, messages: ['the signed request is not a call of DeleteWarehouseReplication'] },
    });
  });

  it('refuses a call whose body hash, key id or headers were changed after signing', async () => {
    const signed = signedCallFor('ListWarehouseReplications', '{}', reader);
    const altered = (change: (headers: Record<string, string[]>) => void): SignedCall => {
      const headers = structuredClone(signed.headers);
      change(headers);
      return { ...signed, headers };
    };
    const otherBody = altered((headers) => (headers['x-svc-content-sha256'] = ['0'.repeat(64)]));
    const otherKey = altered((headers) => (headers['authorization'] = [(headers['authorization']?.[0] ?? '').replace('SVCREADER', 'SVCADMIN')]));
    const otherHost = altered((headers) => (headers['host'] = ['elsewhere.test']));
    for (const call of [otherBody, otherKey, otherHost]) {
      expect(await check('ListWarehouseReplications', call)).toMatchObject({ ok: false, error: { code: ErrorCode.Forbidden } });
    }
  });

  it.each([
    ['another region', { region: 'eu-west-1' }],
    ['a date out of the allowed skew', { now: new Date(Date.now() - 3_600_000) }],
  ])('refuses a signature for %s', async (_label, options) => {
    expect(await check('ListWarehouseReplications', signedCallFor('ListWarehouseReplications', '{}', reader, options))).toMatchObject({
      ok: false,
      error: { code: ErrorCode.Forbidden },
    });
  });

  it('accepts the replaced secret of a rotated key during its overlap', async () => {
    await keys.rotate('SVCREADER', 'new-secret', new Date(Date.now() + 60_000));
    for (const secretKey of ['new-secret', 'reader-secret']) {
      expect(await check('ListWarehouseReplications', signedCallFor('ListWarehouseReplications', '{}', { ...reader, secretKey }))).toMatchObject({ ok: true });
    }
  });

  it('refuses a malformed request, and answers an unexpected failure with a generic error', async () => {
    expect(await check('Nope', { method: 'POST' })).toMatchObject({
      ok: false,
      error: { code: ErrorCode.ValidationFailed, messages: expect.arrayContaining(['operation: must name a known operation']) as unknown },
    });
    keys.find = () => Promise.reject(new Error('sealed value cannot be opened: wrong key or altered data'));
    expect(await check('ListWarehouseReplications', signedCallFor('ListWarehouseReplications', '{}', reader))).toEqual({
      ok: false,
      error: { code: ErrorCode.Internal, messages: ['internal error'] },
    });
  });

  it.each([
    ['/api/ListAccessKeys', 'ListAccessKeys'],
    ['/api/ListAccessKeys/', 'ListAccessKeys'],
    ['/api/%4CistAccessKeys', 'ListAccessKeys'],
    ['/api/a/ListAccessKeys', null],
    ['/ListAccessKeys', null],
    ['/api/%E0%A4%A', null],
  ])('reads the operation of the path %s as %s', (path, operation) => {
    expect(operationOfPath(path)).toBe(operation);
  });
});
