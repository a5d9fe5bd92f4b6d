import { contentTypeOf, wireFormatOf } from './wire-format';

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
    [undefined, null],
  ])('%j → %j', (contentType, format) => {
    expect(wireFormatOf(contentType)).toBe(format);
  });

  it('names the content type of each format with its charset', () => {
    expect(contentTypeOf('xml')).toBe('application/xml; charset=utf-8');
    expect(contentTypeOf('json')).toBe('application/json; charset=utf-8');
  });
});
