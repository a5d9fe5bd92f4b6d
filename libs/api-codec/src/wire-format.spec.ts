import { contentTypeOf, foreignCharsetOf, wireFormatOf } from './wire-format';

describe('wireFormatOf', () => {
  it.each([
    ['application/xml', 'xml'],
    ['text/xml', 'xml'],
    ['Application/XML; charset=utf-8', 'xml'],
    ['application/json', 'json'],
    ['application/json;charset=UTF-8', 'json'],
    ['  APPLICATION/JSON ; charset=utf-8', 'json'],
    ['text/plain', null],
    ['application/x-www-form-urlencoded', null],
    ['application/jsonp', null],
    ['', null],
    ['constructor', null],
    ['toString; charset=utf-8', null],
    ['__proto__', null],
    [undefined, null],
  ])('%j → %j', (contentType, format) => {
    expect(wireFormatOf(contentType)).toBe(format);
  });

  it('names the content type of each format with its charset', () => {
    expect(contentTypeOf('xml')).toBe('application/xml; charset=utf-8');
    expect(contentTypeOf('json')).toBe('application/json; charset=utf-8');
  });
});

describe('foreignCharsetOf', () => {
  it.each([
    ['application/json', null],
    ['application/json; charset=utf-8', null],
    ['application/xml;charset=UTF-8', null],
    ['application/xml; charset="utf-8"', null],
    ['application/json; charset=utf8', null],
    ['application/json; boundary=x', null],
    ['application/json; charset=latin1', 'latin1'],
    ['application/xml; charset=utf-16', 'utf-16'],
    ['application/xml; charset="iso-8859-1"', 'iso-8859-1'],
    ['application/json; charset=utf-8; charset=latin1', 'latin1'],
    ['application/json; charset=', ''],
  ])('%j → %j', (contentType, charset) => {
    expect(foreignCharsetOf(contentType)).toBe(charset);
  });
});
