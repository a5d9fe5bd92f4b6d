import { canonicalQueryString, canonicalRequest, canonicalUri, uriEncode } from './canonical-request';
import { AWS4_SCHEME, SVC4_SCHEME } from './signing-scheme';

describe('uriEncode', () => {
  it('keeps RFC 3986 unreserved characters and percent-encodes UTF-8 bytes of the rest in upper-case hex', () => {
    expect(uriEncode('AZaz09-._~')).toBe('AZaz09-._~');
    expect(uriEncode(" !'()*+/=&%")).toBe('%20%21%27%28%29%2A%2B%2F%3D%26%25');
    expect(uriEncode('é😀')).toBe('%C3%A9%F0%9F%98%80');
  });
});

describe('canonicalUri', () => {
  it.each([
    ['/', '/'],
    ['', '/'],
    ['/api/CreateWarehouseReplication', '/api/CreateWarehouseReplication'],
    ['/a b/ሴ', '/a%20b/%E1%88%B4'],
    ['/already%20encoded', '/already%2520encoded'],
    ['//x//./../y/', '//x//./../y/'],
  ])('SVC4 keeps the path as received and encodes each segment once: %j', (path, expected) => {
    expect(canonicalUri(SVC4_SCHEME, path)).toBe(expected);
  });

  it.each([
    ['//x//./../y/', '/y/'],
    ['/a/b/../../..', '/'],
    ['/./a b', '/a%20b'],
    ['', '/'],
  ])('AWS4 normalises the path first: %j', (path, expected) => {
    expect(canonicalUri(AWS4_SCHEME, path)).toBe(expected);
  });
});

describe('canonicalQueryString', () => {
  it('encodes names and values, sorts by name then value and keeps empty values', () => {
    expect(canonicalQueryString({ b: ['2', '10'], a: '', 'c d': 'x/y', A: 'upper' })).toBe('A=upper&a=&b=10&b=2&c%20d=x%2Fy');
  });

  it('is empty without a query', () => {
    expect(canonicalQueryString(undefined)).toBe('');
    expect(canonicalQueryString({})).toBe('');
  });
});

describe('canonicalRequest', () => {
  const request = {
    method: 'post',
    path: '/api/CreateWarehouseReplication',
    headers: {
      Host: 'svc.example.com',
      'Content-Type': '  application/json  ',
      'X-Multi': ['a   b', ' c '],
      'x-multi': 'd',
      'X-Unsigned': 'ignored',
      'X-Absent': undefined,
    },
    body: '{}',
  };

  it('lower-cases and sorts signed headers, trims and collapses values, joins repeated values with commas', () => {
    expect(canonicalRequest(SVC4_SCHEME, request, ['X-Multi', 'host', 'content-type'], 'HASH')).toBe(
      [
        'POST',
        '/api/CreateWarehouseReplication',
        '',
        'content-type:application/json',
        'host:svc.example.com',
        'x-multi:a b,c,d',
        '',
        'content-type;host;x-multi',
        'HASH',
      ].join('\n'),
    );
  });
});
