import { formatAuthorization, parseAuthorization } from './authorization';
import { AWS4_SCHEME, SVC4_SCHEME } from './signing-scheme';

const SIGNATURE = 'a'.repeat(64);
const VALID = `SVC4-HMAC-SHA256 Credential=AK1/20240102/us-east-1/replication/svc4_request, SignedHeaders=host;x-svc-content-sha256;x-svc-date, Signature=${SIGNATURE}`;

describe('parseAuthorization', () => {
  it('reads a well-formed header', () => {
    expect(parseAuthorization(SVC4_SCHEME, VALID)).toEqual({
      ok: true,
      value: {
        accessKeyId: 'AK1',
        scope: { date: '20240102', region: 'us-east-1', service: 'replication' },
        signedHeaders: ['host', 'x-svc-content-sha256', 'x-svc-date'],
        signature: SIGNATURE,
      },
    });
  });

  it('accepts components separated by commas without spaces', () => {
    expect(parseAuthorization(SVC4_SCHEME, VALID.replace(/, /g, ',')).ok).toBe(true);
  });

  it('reads what formatAuthorization writes', () => {
    const scope = { date: '20150830', region: 'us-east-1', service: 'service' };
    const header = formatAuthorization(AWS4_SCHEME, 'AKIDEXAMPLE', scope, ['host', 'x-amz-date'], SIGNATURE);
    expect(parseAuthorization(AWS4_SCHEME, header)).toEqual({
      ok: true,
      value: { accessKeyId: 'AKIDEXAMPLE', scope, signedHeaders: ['host', 'x-amz-date'], signature: SIGNATURE },
    });
  });

  it.each([
    ['missing', undefined, 'missing'],
    ['blank', '  ', 'missing'],
    ['another algorithm', VALID.replace('SVC4-HMAC-SHA256', 'AWS4-HMAC-SHA256'), 'must start with SVC4-HMAC-SHA256'],
    ['algorithm only', 'SVC4-HMAC-SHA256', 'must start with SVC4-HMAC-SHA256'],
    ['unknown component', `${VALID}, Extra=1`, 'may only hold'],
    ['repeated component', `${VALID}, Signature=${SIGNATURE}`, 'Signature twice'],
    ['no SignedHeaders', VALID.replace(/SignedHeaders=[^,]*, /, ''), 'no SignedHeaders'],
    ['empty Credential', VALID.replace(/Credential=[^,]*/, 'Credential='), 'Credential is empty'],
    ['short Credential', VALID.replace('/replication/', '/'), 'Credential must be'],
    ['empty access key', VALID.replace('AK1/', '/'), 'access key'],
    ['bad scope date', VALID.replace('20240102', '2024-1-2'), 'scope date'],
    ['empty region', VALID.replace('us-east-1', ''), 'region'],
    ['empty service', VALID.replace('replication', ''), 'service'],
    ['wrong terminator', VALID.replace('svc4_request', 'aws4_request'), 'must end with svc4_request'],
    ['upper-case signed header', VALID.replace('host;', 'Host;'), 'lower-case header names'],
    ['empty signed header', VALID.replace('host;', ';'), 'lower-case header names'],
    ['duplicate signed header', VALID.replace('host;', 'host;host;'), 'twice'],
    ['short signature', VALID.replace(SIGNATURE, 'abc'), 'Signature must be'],
    ['upper-case signature', VALID.replace(SIGNATURE, 'A'.repeat(64)), 'Signature must be'],
  ])('rejects %s', (_case, header, reasonPart) => {
    const result = parseAuthorization(SVC4_SCHEME, header);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(reasonPart);
  });

  it('never repeats the signature in a reason', () => {
    const result = parseAuthorization(SVC4_SCHEME, VALID.replace('svc4_request', 'x'));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).not.toContain(SIGNATURE);
  });
});
