import { BODY_LIMIT_BYTES, jsonDeepArrays, jsonHugeString, jsonManyKeys, xmlManyElements } from './hostile-bodies';

describe('hostile bodies', () => {
  it.each([xmlManyElements(), jsonManyKeys(), jsonDeepArrays(), jsonHugeString()])('$name stays just under the 1 MiB body limit', (hostile) => {
    const bytes = Buffer.byteLength(hostile.body);
    expect(bytes).toBeLessThanOrEqual(BODY_LIMIT_BYTES);
    expect(bytes).toBeGreaterThan(BODY_LIMIT_BYTES - 64);
  });

  it('xml-elements holds over 130,000 elements under the Create root, each named once', () => {
    const { body, description } = xmlManyElements();
    const names = body.match(/<X[0-9a-z]+\/>/g) ?? [];
    expect(names.length).toBeGreaterThan(130_000);
    expect(new Set(names).size).toBe(names.length);
    expect(body.startsWith('<CreateWarehouseReplicationRequest>')).toBe(true);
    expect(description).toBe(`${names.length.toLocaleString('en-US')} empty elements`);
  });

  it('the JSON bodies are valid JSON', () => {
    for (const hostile of [jsonManyKeys(), jsonDeepArrays(), jsonHugeString()]) expect(() => JSON.parse(hostile.body) as unknown).not.toThrow();
    expect(Object.keys(JSON.parse(jsonManyKeys().body) as object).length).toBeGreaterThan(90_000);
  });
});
