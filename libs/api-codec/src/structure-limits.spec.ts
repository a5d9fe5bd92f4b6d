import { decodeRequest } from './decode-request';
import { MAX_JSON_DEPTH, MAX_JSON_FIELDS, MAX_XML_MARKUP, structureLimitProblem } from './structure-limits';

const xmlWith = (inner: string) => `<CreateWarehouseReplicationRequest>${inner}</CreateWarehouseReplicationRequest>`;
const elements = (count: number) => Array.from({ length: count }, (_, index) => `<F${index}>x</F${index}>`).join('');

describe('structureLimitProblem (XML)', () => {
  it('lets through a body with as many elements as the limit, root included', () => {
    expect(structureLimitProblem('xml', xmlWith(elements(MAX_XML_MARKUP - 1)))).toBeNull();
  });

  it('refuses one element more', () => {
    expect(structureLimitProblem('xml', xmlWith(elements(MAX_XML_MARKUP)))).toBe(
      `the XML body has more than ${MAX_XML_MARKUP} elements; a request has a few dozen fields`,
    );
  });

  it('counts self-closing elements, comments, CDATA sections and processing instructions as markup, closing tags not', () => {
    const each = ['<A/>', '<!-- c -->', '<![CDATA[x]]>', '<?pi x?>'];
    for (const markup of each) {
      expect(structureLimitProblem('xml', markup.repeat(MAX_XML_MARKUP))).toBeNull();
      expect(structureLimitProblem('xml', markup.repeat(MAX_XML_MARKUP + 1))).not.toBeNull();
    }
    expect(structureLimitProblem('xml', `<A>${'</A>'.repeat(10 * MAX_XML_MARKUP)}`)).toBeNull();
  });

  it('refuses a 1 MiB body of 130,000 small elements in a few milliseconds, before any parser runs', () => {
    const hostile = xmlWith(Array.from({ length: 131_000 }, (_, index) => `<X${index.toString(36)}/>`).join(''));
    const started = performance.now();
    const result = decodeRequest('CreateWarehouseReplication', 'xml', Buffer.from(hostile));
    expect(result).toEqual({ ok: false, messages: [`the XML body has more than ${MAX_XML_MARKUP} elements; a request has a few dozen fields`] });
    // Generous: the scan takes about 1 ms; parsing the same body took about a second.
    expect(performance.now() - started).toBeLessThan(250);
  });
});

describe('structureLimitProblem (JSON)', () => {
  const keys = (count: number) => `{${Array.from({ length: count }, (_, index) => `"k${index}":1`).join(',')}}`;

  const tooMany = `the JSON body has more than ${MAX_JSON_FIELDS} fields, groups and lists; a request has a few dozen`;

  it('counts keys, objects and lists at every level and refuses more than the limit', () => {
    expect(structureLimitProblem('json', keys(MAX_JSON_FIELDS - 1))).toBeNull();
    expect(structureLimitProblem('json', keys(MAX_JSON_FIELDS))).toBe(tooMany);
    expect(structureLimitProblem('json', `{"source":${keys(MAX_JSON_FIELDS - 2)}}`)).toBe(tooMany);
    expect(structureLimitProblem('json', `[${'{},'.repeat(MAX_JSON_FIELDS - 1)}{}]`)).toBe(tooMany);
    expect(structureLimitProblem('json', `[${'{},'.repeat(MAX_JSON_FIELDS - 2)}{}]`)).toBeNull();
  });

  it('ignores colons, brackets and escaped quotes inside strings', () => {
    const value = `"${'a:b[{\\"'.repeat(5000)}"`;
    expect(structureLimitProblem('json', `{"connectionString":${value}}`)).toBeNull();
  });

  it('refuses objects and lists nested deeper than the limit', () => {
    const nested = (depth: number) => `{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    expect(structureLimitProblem('json', nested(MAX_JSON_DEPTH))).toBeNull();
    expect(structureLimitProblem('json', nested(MAX_JSON_DEPTH + 1))).toBe(
      `the JSON body is nested more than ${MAX_JSON_DEPTH} levels deep; a request nests at most three`,
    );
  });

  it('lets through long lists and long strings, which cost little to read', () => {
    expect(structureLimitProblem('json', `{"tablesToInclude":[${'"[dbo].[T]",'.repeat(50_000)}"[dbo].[U]"]}`)).toBeNull();
    expect(structureLimitProblem('json', `{"tablesToInclude":"${'a'.repeat(1_000_000)}"}`)).toBeNull();
  });
});
