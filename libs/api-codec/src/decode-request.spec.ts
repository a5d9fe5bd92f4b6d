import { decodeRequest } from './decode-request';
import { MAX_BODY_BYTES } from './wire-format';
import { BAD_REFERENCE } from './xml-entities';

const body = (text: string) => Buffer.from(text, 'utf8');

function tree(result: ReturnType<typeof decodeRequest>): Record<string, unknown> {
  if (!result.ok) throw new Error(`expected a tree, got ${result.messages.join(' | ')}`);
  return result.tree;
}

function messages(result: ReturnType<typeof decodeRequest>): string[] {
  if (result.ok) throw new Error(`expected messages, got ${JSON.stringify(result.tree)}`);
  return result.messages;
}

const CREATE_XML = `<?xml version="1.0" encoding="utf-8"?>
<CreateWarehouseReplicationRequest xmlns="http://example.com/svc" xmlns:i="http://www.w3.org/2001/XMLSchema-instance">
  <ParallelTablesLimit>10</ParallelTablesLimit>
  <RebuildIndexes>false</RebuildIndexes>
  <Source>
    <ConnectionString>Data Source=src.example.com;Initial Catalog=Sales;User ID=repl;Password=p&amp;ss&lt;1&gt;</ConnectionString>
    <EncryptDataInTransit>true</EncryptDataInTransit>
    <ChangeTrackingRetentionPeriod>2 DAYS</ChangeTrackingRetentionPeriod>
  </Source>
  <Warehouse>
    <AccessType>AccessKey</AccessType>
    <BucketFolderName>/replications/sales</BucketFolderName>
    <RetentionDays>7</RetentionDays>
  </Warehouse>
  <AddUpdateTimestamp i:nil="false">true</AddUpdateTimestamp>
  <TablesToInclude><![CDATA[[dbo].[Orders], [dbo].[Customers]]]></TablesToInclude>
  <ReseedingSchedule>
    <NoPkTablesToInclude/>
    <PkTablesToInclude></PkTablesToInclude>
  </ReseedingSchedule>
</CreateWarehouseReplicationRequest>`;

describe('decodeRequest (XML)', () => {
  it('turns PascalCase elements into lower camel keys and keeps values as raw text', () => {
    expect(tree(decodeRequest('CreateWarehouseReplication', 'xml', body(CREATE_XML)))).toEqual({
      parallelTablesLimit: '10',
      rebuildIndexes: 'false',
      source: {
        connectionString: 'Data Source=src.example.com;Initial Catalog=Sales;User ID=repl;Password=p&ss<1>',
        encryptDataInTransit: 'true',
        changeTrackingRetentionPeriod: '2 DAYS',
      },
      warehouse: { accessType: 'AccessKey', bucketFolderName: '/replications/sales', retentionDays: '7' },
      addUpdateTimestamp: 'true',
      tablesToInclude: '[dbo].[Orders], [dbo].[Customers]',
      reseedingSchedule: { noPkTablesToInclude: '', pkTablesToInclude: '' },
    });
  });

  it('tolerates namespace prefixes on elements', () => {
    const xml = '<s:DescribeWarehouseReplicationRequest xmlns:s="urn:svc"><s:ReplicationId>abc</s:ReplicationId></s:DescribeWarehouseReplicationRequest>';
    expect(tree(decodeRequest('DescribeWarehouseReplication', 'xml', body(xml)))).toEqual({ replicationId: 'abc' });
  });

  it('decodes numeric character references once, without double-decoding', () => {
    const xml = '<DescribeWarehouseReplicationRequest><ReplicationId>&#65;&#x42;&amp;#67;</ReplicationId></DescribeWarehouseReplicationRequest>';
    expect(tree(decodeRequest('DescribeWarehouseReplication', 'xml', body(xml)))).toEqual({ replicationId: 'AB&#67;' });
  });

  it('reads an empty root element as a request without fields', () => {
    expect(tree(decodeRequest('ListWarehouseReplications', 'xml', body('<ListWarehouseReplicationsRequest/>')))).toEqual({});
    expect(tree(decodeRequest('ListWarehouseReplications', 'xml', body('<ListWarehouseReplicationsRequest>\n  <!-- nothing -->\n</ListWarehouseReplicationsRequest>')))).toEqual({});
    expect(tree(decodeRequest('CreateWarehouseReplication', 'xml', body('<CreateWarehouseReplicationRequest></CreateWarehouseReplicationRequest>')))).toEqual({});
  });

  it('accepts an empty body only where every field is optional', () => {
    expect(tree(decodeRequest('StopReplicationService', 'xml', body('')))).toEqual({});
    expect(tree(decodeRequest('StartReplication', 'json', body('  \n')))).toEqual({});
    expect(messages(decodeRequest('AlterWarehouseReplication', 'xml', body('')))).toEqual([
      'the request body is empty; expected a <AlterWarehouseReplicationRequest> element',
    ]);
    expect(messages(decodeRequest('CreateWarehouseReplication', 'json', body(' ')))).toEqual(['the request body is empty; expected a JSON object']);
  });

  it.each([
    ['a different root', '<AlterWarehouseReplicationRequest/>', 'the root element must be <CreateWarehouseReplicationRequest>, not <AlterWarehouseReplicationRequest>'],
    ['text in the root', '<CreateWarehouseReplicationRequest>hello</CreateWarehouseReplicationRequest>', '<CreateWarehouseReplicationRequest> must contain elements, not text'],
    ['two roots', '<CreateWarehouseReplicationRequest/><CreateWarehouseReplicationRequest/>', 'the XML body must have exactly one root element <CreateWarehouseReplicationRequest>'],
    [
      'a repeated element',
      '<CreateWarehouseReplicationRequest><Warehouse><BucketName>a</BucketName><BucketName>b</BucketName></Warehouse></CreateWarehouseReplicationRequest>',
      '{Warehouse\\BucketName}: is given more than once',
    ],
    [
      'a lower-case element name',
      '<CreateWarehouseReplicationRequest><Source><connectionString>x</connectionString></Source></CreateWarehouseReplicationRequest>',
      '{Source\\connectionString}: unknown field; XML element names are PascalCase (letters and digits, first one upper-case)',
    ],
    ['a prototype key', '<CreateWarehouseReplicationRequest><__proto__>x</__proto__></CreateWarehouseReplicationRequest>', 'malformed XML: an element is named like a JavaScript built-in (__proto__, constructor)'],
    [
      'text mixed with elements',
      '<CreateWarehouseReplicationRequest><Source>oops<EncryptDataInTransit>true</EncryptDataInTransit></Source></CreateWarehouseReplicationRequest>',
      '{Source}: has text between its elements',
    ],
    [
      'an undefined entity, naming its element',
      '<CreateWarehouseReplicationRequest><Warehouse><A>x</A><B><![CDATA[&cdata;]]></B><Password>&nbsp;</Password></Warehouse></CreateWarehouseReplicationRequest>',
      `{Warehouse\\Password}: malformed XML: ${BAD_REFERENCE}`,
    ],
    ['a reference beyond Unicode', '<CreateWarehouseReplicationRequest><A>&#x110000;</A></CreateWarehouseReplicationRequest>', `{A}: malformed XML: ${BAD_REFERENCE}`],
    ['another declared encoding', '<?xml version="1.0" encoding="ISO-8859-1"?><CreateWarehouseReplicationRequest/>', 'XML must be encoded in UTF-8'],
  ])('refuses %s', (_case, xml, message) => {
    expect(messages(decodeRequest('CreateWarehouseReplication', 'xml', body(xml)))).toEqual([message]);
  });

  it('reports every structural problem of a body at once', () => {
    const xml = '<CreateWarehouseReplicationRequest><A>1</A><A>2</A><Source><b>x</b></Source></CreateWarehouseReplicationRequest>';
    expect(messages(decodeRequest('CreateWarehouseReplication', 'xml', body(xml)))).toHaveLength(2);
  });

  it('locates malformed XML by line and column', () => {
    const xml = '<CreateWarehouseReplicationRequest>\n  <Source>\n  </Staging>\n</CreateWarehouseReplicationRequest>';
    expect(messages(decodeRequest('CreateWarehouseReplication', 'xml', body(xml)))).toEqual([
      'malformed XML at line 3, column 3: a tag is malformed, not closed, or closed by a different tag',
    ]);
  });

  it('does not quote a fragment of a value in a syntax error', () => {
    const xml = '<CreateWarehouseReplicationRequest><Warehouse><Password>pa<ss word</Password></Warehouse></CreateWarehouseReplicationRequest>';
    const [message = ''] = messages(decodeRequest('CreateWarehouseReplication', 'xml', body(xml)));
    expect(message).toMatch(/^malformed XML at line 1, column \d+: /);
    expect(message).not.toMatch(/ss|word/);
  });

  it('refuses a DOCTYPE without parsing it, so entity expansion cannot happen', () => {
    const xxe = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><CreateWarehouseReplicationRequest><A>&x;</A></CreateWarehouseReplicationRequest>';
    expect(messages(decodeRequest('CreateWarehouseReplication', 'xml', body(xxe)))).toEqual([
      'XML with a DOCTYPE or ENTITY declaration is not accepted',
    ]);
    expect(messages(decodeRequest('CreateWarehouseReplication', 'xml', body('<CreateWarehouseReplicationRequest><!ENTITY a "b"></CreateWarehouseReplicationRequest>')))).toEqual([
      'XML with a DOCTYPE or ENTITY declaration is not accepted',
    ]);
  });

  it('refuses a billion-laughs body within milliseconds', () => {
    const entities = ['<!ENTITY lol "lol">'];
    for (let level = 1; level <= 9; level += 1) {
      entities.push(`<!ENTITY lol${level} "${`&lol${level === 1 ? '' : level - 1};`.repeat(10)}">`);
    }
    const bomb = `<?xml version="1.0"?>\n<!DOCTYPE lolz [\n${entities.join('\n')}\n]>\n<CreateWarehouseReplicationRequest><Source><ConnectionString>&lol9;</ConnectionString></Source></CreateWarehouseReplicationRequest>`;
    const started = process.hrtime.bigint();
    const result = decodeRequest('CreateWarehouseReplication', 'xml', body(bomb));
    const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
    expect(messages(result)).toEqual(['XML with a DOCTYPE or ENTITY declaration is not accepted']);
    expect(elapsedMs).toBeLessThan(50);
  });

  it('refuses nesting far deeper than any request, quickly', () => {
    const depth = 500;
    const xml = `<CreateWarehouseReplicationRequest>${'<A>'.repeat(depth)}x${'</A>'.repeat(depth)}</CreateWarehouseReplicationRequest>`;
    expect(messages(decodeRequest('CreateWarehouseReplication', 'xml', body(xml)))).toEqual(['XML is nested too deeply']);
  });
});

describe('decodeRequest (JSON)', () => {
  it('takes an object as it is', () => {
    const json = '{"parallelTablesLimit": 10, "rebuildIndexes": "false", "source": {"resetChangeTracking": false}, "tablesToInclude": null}';
    expect(tree(decodeRequest('CreateWarehouseReplication', 'json', body(json)))).toEqual({
      parallelTablesLimit: 10,
      rebuildIndexes: 'false',
      source: { resetChangeTracking: false },
      tablesToInclude: null,
    });
  });

  it('accepts the unquoted GUID of the seed example, bare or in braces', () => {
    const bare = '{"replicationId": 3F2504E0-4F89-11D3-9A0C-0305E82C3301, "parallelTablesLimit": "8"}';
    expect(tree(decodeRequest('AlterWarehouseReplication', 'json', body(bare)))).toEqual({
      replicationId: '3F2504E0-4F89-11D3-9A0C-0305E82C3301',
      parallelTablesLimit: '8',
    });
    const braced = '{"replicationId":{3f2504e0-4f89-11d3-9a0c-0305e82c3301}}';
    expect(tree(decodeRequest('AlterWarehouseReplication', 'json', body(braced)))).toEqual({
      replicationId: '{3f2504e0-4f89-11d3-9a0c-0305e82c3301}',
    });
  });

  it('leaves GUIDs inside strings alone', () => {
    const json = '{"replicationName": "copy of 3F2504E0-4F89-11D3-9A0C-0305E82C3301, \\"quoted\\""}';
    expect(tree(decodeRequest('AlterWarehouseReplication', 'json', body(json)))).toEqual({
      replicationName: 'copy of 3F2504E0-4F89-11D3-9A0C-0305E82C3301, "quoted"',
    });
  });

  it('skips a byte order mark', () => {
    expect(tree(decodeRequest('DescribeWarehouseReplication', 'json', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body('{"a":1}')])))).toEqual({ a: 1 });
  });

  it.each([
    ['a missing comma', '{\n  "a": 1\n  "b": 2\n}', "invalid JSON at line 3, column 3: expected ',' or '}'"],
    ['an unquoted word', '{"warehouse": {"password": hunter2}}', 'invalid JSON at line 1, column 28: unexpected character; a value (string in double quotes, number, true, false, null, object or array) is expected'],
    ['a truncated body', '{"a": [1, 2', "invalid JSON at line 1, column 12: unexpected end of input; ']' is missing"],
    ['a trailing comma', '{"a": 1,}', 'invalid JSON at line 1, column 9: expected a property name in double quotes'],
    ['single quotes', "{'a': 1}", 'invalid JSON at line 1, column 2: expected a property name in double quotes'],
    ['a raw newline in a string', '{"a": "x\ny"}', 'invalid JSON at line 1, column 9: control character in a string (write it as an escape such as \\n)'],
    ['a leading zero', '{"a": 01}', 'invalid JSON at line 1, column 7: invalid number'],
    ['text after the object', '{"a": 1} x', 'invalid JSON at line 1, column 10: unexpected text after the end of the JSON value'],
    ['a position after a quoted GUID, mapped back', '{"replicationId": 3F2504E0-4F89-11D3-9A0C-0305E82C3301 "x": 1}', "invalid JSON at line 1, column 56: expected ',' or '}'"],
  ])('locates %s', (_case, json, message) => {
    expect(messages(decodeRequest('CreateWarehouseReplication', 'json', body(json)))).toEqual([message]);
  });

  it('never quotes the body in a JSON syntax error', () => {
    const [message = ''] = messages(decodeRequest('CreateWarehouseReplication', 'json', body('{"password": "s3cr3t", oops}')));
    expect(message).not.toContain('s3cr3t');
  });

  it.each([
    ['an array', '[{"a": 1}]'],
    ['a string', '"x"'],
    ['null', 'null'],
  ])('refuses %s as the body', (_case, json) => {
    expect(messages(decodeRequest('CreateWarehouseReplication', 'json', body(json)))).toEqual(['the JSON body must be an object of fields']);
  });
});

describe('decodeRequest (JSON): a key given twice', () => {
  it('is refused by name, like a repeated XML element, instead of the last one silently counting', () => {
    const json = '{"replicationId":"3f2504e0-4f89-11d3-9a0c-0305e82c3301","warehouse":{"retentionDays":3,"retentionDays":"7"},"isContinuous":"true","isContinuous":"false"}';
    expect(messages(decodeRequest('AlterWarehouseReplication', 'json', body(json)))).toEqual([
      '{Warehouse\\RetentionDays}: is given more than once',
      '{IsContinuous}: is given more than once',
    ]);
  });

  it('names nothing a caller nested inside a secret field', () => {
    const json = '{"warehouse":{"password":{"zq7xsecret":1,"zq7xsecret":2}}}';
    expect(tree(decodeRequest('CreateWarehouseReplication', 'json', body(json)))).toEqual({ warehouse: { password: { zq7xsecret: 2 } } });
  });
});

describe('decodeRequest (either format)', () => {
  it('refuses a body over the limit', () => {
    const big = Buffer.alloc(MAX_BODY_BYTES + 1, 0x20);
    expect(messages(decodeRequest('CreateWarehouseReplication', 'json', big))).toEqual([`the request body is larger than ${MAX_BODY_BYTES} bytes`]);
  });

  it('refuses bytes that are not UTF-8', () => {
    const latin1 = Buffer.from('<CreateWarehouseReplicationRequest><A>caf\xe9</A></CreateWarehouseReplicationRequest>', 'latin1');
    expect(messages(decodeRequest('CreateWarehouseReplication', 'xml', latin1))).toEqual(['the request body is not valid UTF-8']);
  });
});

describe('XML attributes', () => {
  const create = (inner: string) => body(`<CreateWarehouseReplicationRequest>${inner}</CreateWarehouseReplicationRequest>`);

  it.each([
    ['on a field', '<Warehouse><BucketName region="eu">b</BucketName></Warehouse>', '{Warehouse\\BucketName}'],
    ['on an empty field', '<Warehouse><BucketName value="b"/></Warehouse>', '{Warehouse\\BucketName}'],
    ['on a group', '<Warehouse kind="x"><BucketName>b</BucketName></Warehouse>', '{Warehouse}'],
    ['with a namespace prefix', '<Warehouse><BucketName n:v="1" xmlns:n="urn:x">b</BucketName></Warehouse>', '{Warehouse\\BucketName}'],
  ])('are refused %s, not ignored', (_where, inner, label) => {
    expect(messages(decodeRequest('CreateWarehouseReplication', 'xml', create(inner)))).toEqual([
      `${label}: has an attribute; the API reads elements only (namespace declarations aside)`,
    ]);
  });

  it('are refused on the root element', () => {
    expect(messages(decodeRequest('ListWarehouseReplications', 'xml', body('<ListWarehouseReplicationsRequest all="true"/>')))).toEqual([
      'the root element: has an attribute; the API reads elements only (namespace declarations aside)',
    ]);
  });

  it('never quote a secret given as an attribute', () => {
    const result = messages(decodeRequest('CreateWarehouseReplication', 'xml', create('<Warehouse><Password value="Zq7xSECRET">x</Password></Warehouse>')));
    expect(result.join(' ')).not.toMatch(/Zq7x|SECRET/);
  });

  it('allow namespace declarations and XML Schema instance attributes', () => {
    const xml = create('<Warehouse xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><BucketName i:nil="false">b</BucketName><Url xmlns="urn:x">u</Url></Warehouse>');
    expect(tree(decodeRequest('CreateWarehouseReplication', 'xml', xml))).toEqual({ warehouse: { bucketName: 'b', url: 'u' } });
  });
});

describe('XML elements nested in a secret field', () => {
  it.each([
    ['an element named from the secret', '<Password>a<zq7xsecret>1</zq7xsecret>b</Password>'],
    ['a repeated element', '<Password><Zq7xSecret>1</Zq7xSecret><Zq7xSecret>2</Zq7xSecret></Password>'],
    ['a bad reference', '<Password><Zq7xSecret>&zq7x;</Zq7xSecret></Password>'],
    ['an attribute', '<Password><Zq7xSecret a="1">2</Zq7xSecret></Password>'],
  ])('are never named: %s', (_what, password) => {
    const result = decodeRequest('CreateWarehouseReplication', 'xml', body(`<CreateWarehouseReplicationRequest><Warehouse>${password}</Warehouse></CreateWarehouseReplicationRequest>`));
    const said = result.ok ? JSON.stringify(result.tree) : result.messages.join(' ');
    if (result.ok) expect(result.tree).toEqual({ warehouse: { password: {} } });
    expect(said.toLowerCase()).not.toContain('zq7x');
  });
});

describe('XML character references and secrets', () => {
  const request = (password: string) =>
    body(`<CreateWarehouseReplicationRequest><Warehouse><Password>${password}</Password></Warehouse></CreateWarehouseReplicationRequest>`);

  it.each(['&ZqyG6kDSGQWk;', 'Qv&Xw7z;Rk', '&toString;', '&constructor;', '&__proto__;'])('never quotes the text of %s', (password) => {
    const result = messages(decodeRequest('CreateWarehouseReplication', 'xml', request(password)));
    expect(result).toEqual([`{Warehouse\\Password}: malformed XML: ${BAD_REFERENCE}`]);
    const secret = password.replace(/[&#;]/g, '');
    for (let start = 0; start + 4 <= secret.length; start += 1) expect(result.join(' ')).not.toContain(secret.slice(start, start + 4));
  });

  it('decodes a numeric reference to a character XML cannot carry, for the model to refuse by field', () => {
    expect(tree(decodeRequest('CreateWarehouseReplication', 'xml', request('a&#0;b&#x1F;&#xD800;')))).toEqual({ warehouse: { password: 'a\u0000b\u001f\ud800' } });
  });
});

