import { type WireFormat } from '@svc/api-codec';
import { type OperationName } from '@svc/contracts';
import { fieldLabel } from './field-label';
import { parseOperationRequest } from './parse-operation-request';
import { alterAccessKeyTree, bodyOf, createAccessKeyTree, decoded, withChange, type Tree } from './spec-support/seed-requests';

const MARK = 'HOSTILEMARK';

/** Paths of every text leaf of a tree. */
function leafPaths(tree: Tree, prefix: string[] = []): string[][] {
  return Object.entries(tree).flatMap(([key, value]) =>
    typeof value === 'object' && value !== null ? leafPaths(value as Tree, [...prefix, key]) : [[...prefix, key]],
  );
}

/** The request with `character` placed in the middle of the field at `path`, sent as XML (raw or as a reference) or JSON. */
function problemsWith(operation: OperationName, tree: Tree, path: string[], character: string, encoding: 'json' | 'xml-raw' | 'xml-reference'): string[] {
  const original = path.reduce<unknown>((node, key) => (node as Tree)[key], tree);
  const text = String(original);
  const changed = withChange(tree, path, `${text.slice(0, 3)}${MARK}${text.slice(3)}`);
  const format: WireFormat = encoding === 'json' ? 'json' : 'xml';
  const reference = `&#x${(character.codePointAt(0) ?? 0).toString(16)};`;
  const replacement = encoding === 'json' ? JSON.stringify(character).slice(1, -1) : encoding === 'xml-raw' ? character : reference;
  const body = bodyOf(operation, format, changed).replace(MARK, replacement);
  const result = parseOperationRequest(operation, decoded(operation, format, body));
  return result.ok ? [] : result.messages;
}

const CASES: [OperationName, () => Tree][] = [
  ['CreateWarehouseReplication', createAccessKeyTree],
  ['AlterWarehouseReplication', alterAccessKeyTree],
];

describe('control characters in any text field', () => {
  for (const [operation, treeOf] of CASES) {
    const paths = leafPaths(treeOf());
    describe(operation, () => {
      it.each(paths.flatMap((path) => (['json', 'xml-raw', 'xml-reference'] as const).map((encoding) => [fieldLabel(path), encoding, path] as const)))(
        'refuses NUL in %s (%s) by the field name and the rule',
        (label, encoding, path) => {
          // Raw NUL is what PostgreSQL's jsonb cannot store; a raw one in XML is sent the way a careless client would.
          expect(problemsWith(operation, treeOf(), path, '\u0000', encoding)).toEqual([
            `${label}: invalid value: text must not contain control characters or unpaired surrogates (a control character U+0000 was sent)`,
          ]);
        },
      );
    });
  }

  it.each(['\u0001', '\u001f', '\u007f', '\u0085', '\n', '\t'])('refuses %j inside a value', (character) => {
    const problems = problemsWith('AlterWarehouseReplication', alterAccessKeyTree(), ['sourceConnectionString'], character, 'json');
    expect(problems).toEqual([expect.stringMatching(/^\{SourceConnectionString\}: invalid value: text must not contain control characters/)]);
  });

  it('refuses an unpaired surrogate, which PostgreSQL cannot store either', () => {
    const problems = problemsWith('CreateWarehouseReplication', createAccessKeyTree(), ['tablesToInclude'], '\ud800', 'json');
    expect(problems).toEqual([expect.stringMatching(/^\{TablesToInclude\}: .*an unpaired surrogate U\+D800/)]);
  });

  it('keeps a paired surrogate (an emoji) in a replication name', () => {
    const result = parseOperationRequest('AlterWarehouseReplication', { ...alterAccessKeyTree(), replicationName: 'sales 📦' });
    expect(result.ok && result.value.replicationName).toBe('sales 📦');
  });

  it('never quotes the secret around the character', () => {
    const problems = problemsWith('AlterWarehouseReplication', alterAccessKeyTree(), ['warehouse', 'password'], '\u0000', 'json');
    expect(problems.join(' ')).not.toMatch(/Wh-|Pa55/);
  });
});

describe('unknown fields named like members of Object.prototype', () => {
  const names = ['toString', 'valueOf', 'hasOwnProperty', '__defineGetter__', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString'];

  it.each(names)('refuses %s at the top level and in a group (JSON)', (name) => {
    const tree = JSON.parse(JSON.stringify({ ...alterAccessKeyTree(), [name]: 'x', warehouse: { retentionDays: '3', [name]: 'x' } })) as Tree;
    const result = parseOperationRequest('AlterWarehouseReplication', tree);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.messages).toEqual(
      expect.arrayContaining([`${fieldLabel([name])}: unknown field`, `${fieldLabel(['warehouse', name])}: unknown field`]),
    );
  });

  it.each(names.filter((name) => /^[a-z]/.test(name)))('refuses %s sent as an XML element', (name) => {
    const element = name.charAt(0).toUpperCase() + name.slice(1);
    const xml = `<DescribeWarehouseReplicationRequest><ReplicationId>3f2504e0-4f89-11d3-9a0c-0305e82c3301</ReplicationId><${element}>x</${element}></DescribeWarehouseReplicationRequest>`;
    const result = parseOperationRequest('DescribeWarehouseReplication', decoded('DescribeWarehouseReplication', 'xml', xml));
    expect(result).toEqual({ ok: false, messages: [`{${element}}: unknown field`] });
  });

  it('refuses them in operations without fields too', () => {
    expect(parseOperationRequest('ListWarehouseReplications', { valueOf: 1 })).toEqual({ ok: false, messages: ['{ValueOf}: unknown field'] });
  });
});
