import { repeatedJsonKeys } from './json-repeated-keys';

describe('repeatedJsonKeys', () => {
  it.each([
    ['{"a":1,"b":2}', []],
    ['{"a":1,"a":2}', [['a']]],
    ['{"a":1,"\\u0061":2}', [['a']]],
    ['{"warehouse":{"bucketName":"x","bucketName":"y"},"bucketName":"z"}', [['warehouse', 'bucketName']]],
    ['{"list":[{"a":1},{"a":2}]}', []],
    ['{"list":[{"a":1,"a":2}]}', [['list', 'a']]],
    ['{"s":"{\\"a\\":1,\\"a\\":2}"}', []],
    ['{"a":{"x":1},"b":{"x":1}}', []],
    ['{"constructor":1,"constructor":2,"__proto__":1,"__proto__":2}', [['constructor'], ['__proto__']]],
    ['{"a": 1 , "a" : 2}', [['a']]],
  ])('%s → %j', (json, expected) => {
    expect(repeatedJsonKeys(json)).toEqual(expected);
  });

  it('names a repeated secret field but nothing a caller nested inside one', () => {
    const json = '{"warehouse":{"password":{"Zq7xSECRET":1,"Zq7xSECRET":2},"password":"p"}}';
    expect(repeatedJsonKeys(json)).toEqual([['warehouse', 'password']]);
  });
});
