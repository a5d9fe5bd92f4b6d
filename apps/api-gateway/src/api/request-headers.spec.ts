import { canonicalQueryString } from '@svc/signing';
import { headersAsSent, queryAsSent, repeatedSigningHeader } from './request-headers';

const AUTHORIZATION = 'SVC4-HMAC-SHA256 Credential=K/20240517/us-east-1/replication/svc4_request, SignedHeaders=host;x-svc-date;x-trace, Signature=ab';

describe('request headers as sent', () => {
  it('keeps every occurrence under its lower-case name', () => {
    const headers = headersAsSent(['Authorization', 'a', 'authorization', 'b', 'X-Svc-Date', 'd']);
    expect(headers['authorization']).toEqual(['a', 'b']);
    expect(headers['x-svc-date']).toEqual(['d']);
  });

  it.each([
    ['Authorization', ['Authorization', AUTHORIZATION, 'Authorization', AUTHORIZATION]],
    ['x-svc-date', ['Authorization', AUTHORIZATION, 'X-Svc-Date', '20240517T083015Z', 'x-svc-date', '20240517T083016Z']],
    ['x-svc-content-sha256', ['X-Svc-Content-Sha256', 'a', 'X-Svc-Content-Sha256', 'b']],
    ['host', ['Host', 'a', 'Host', 'b']],
    ['content-type', ['Content-Type', 'application/json', 'Content-Type', 'application/xml']],
    ['a header listed in SignedHeaders', ['Authorization', AUTHORIZATION, 'X-Trace', '1', 'X-Trace', '2']],
  ])('finds a repeated %s', (_name, raw) => {
    expect(repeatedSigningHeader(headersAsSent(raw), 'x-svc-')).not.toBeNull();
  });

  it('lets other headers repeat', () => {
    expect(repeatedSigningHeader(headersAsSent(['Authorization', AUTHORIZATION, 'Accept', 'a', 'Accept', 'b']), 'x-svc-')).toBeNull();
  });

  it('is not confused by header names of Object.prototype', () => {
    expect(repeatedSigningHeader(headersAsSent(['constructor', 'a', 'toString', 'b']), 'x-svc-')).toBeNull();
  });
});

describe('query as sent', () => {
  it('keeps parameters named like Object.prototype members as parameters', () => {
    const query = queryAsSent('/api/ListWarehouseReplications?constructor=1&__proto__=2&toString=3&toString=4&x=%E0%A4%A');
    expect(Object.entries(query)).toEqual([
      ['constructor', ['1']],
      ['__proto__', ['2']],
      ['toString', ['3', '4']],
      ['x', ['\ufffd%A']],
    ]);
    expect(canonicalQueryString(query)).toBe('__proto__=2&constructor=1&toString=3&toString=4&x=%EF%BF%BD%25A');
  });
});
