import type { IncomingHttpHeaders } from 'node:http';
import { ExitCode } from '../exit-codes';
import type { HttpResponse } from '../http/send-operation';
import { parseJsonErrorBody, parseXmlErrorBody } from './error-body';
import { renderResponse } from './render-response';

function response(status: number, body: string, headers: IncomingHttpHeaders = {}): HttpResponse {
  return { kind: 'response', status, headers, body: Buffer.from(body, 'utf8') };
}

const XML_ERROR = `<?xml version="1.0" encoding="UTF-8"?>
<ErrorResponse>
  <RequestId>4711</RequestId>
  <Errors>
    <Error>{Warehouse\\BucketName}: invalid value 'x y'. A bucket name is 3-63 characters of a-z, 0-9, '.', '-'</Error>
    <Error><Message>{ParallelTablesLimit}: must be an integer &amp; at least 1</Message></Error>
  </Errors>
</ErrorResponse>`;

const JSON_ERROR = JSON.stringify({
  errors: ["{Warehouse\\BucketName}: invalid value 'x y'", '{Source\\ConnectionString}: cannot connect: connection refused'],
  requestId: 4712,
});

describe('renderResponse — errors', () => {
  it('renders an XML ErrorResponse, with Error text given directly or in Message', () => {
    expect(renderResponse(response(400, XML_ERROR, { 'content-type': 'application/xml' }), { raw: false })).toEqual({
      exitCode: ExitCode.Failed,
      stdout: '',
      stderr: [
        'Error: HTTP 400 (request 4711)',
        "  - {Warehouse\\BucketName}: invalid value 'x y'. A bucket name is 3-63 characters of a-z, 0-9, '.', '-'",
        '  - {ParallelTablesLimit}: must be an integer & at least 1',
        '',
      ].join('\n'),
    });
  });

  it('renders a JSON {errors, requestId} body', () => {
    expect(renderResponse(response(400, JSON_ERROR, { 'content-type': 'application/json; charset=utf-8' }), { raw: false }).stderr).toBe(
      [
        'Error: HTTP 400 (request 4712)',
        "  - {Warehouse\\BucketName}: invalid value 'x y'",
        '  - {Source\\ConnectionString}: cannot connect: connection refused',
        '',
      ].join('\n'),
    );
  });

  it('recognises the format from the body when the content type says nothing', () => {
    expect(renderResponse(response(403, XML_ERROR), { raw: false }).stderr).toContain('Error: HTTP 403 (request 4711)\n  - {Warehouse');
    expect(renderResponse(response(404, JSON_ERROR), { raw: true }).stderr).toContain('Error: HTTP 404 (request 4712)\n  - {Warehouse');
  });

  it('falls back to the X-Svc-Request-Id header and shows the start of a body that is no API error', () => {
    const rendered = renderResponse(response(502, '<html>\n  Bad   gateway\n</html>', { 'content-type': 'text/html', 'x-svc-request-id': '99' }), {
      raw: false,
    });
    expect(rendered.exitCode).toBe(ExitCode.Failed);
    expect(rendered.stderr).toBe('Error: HTTP 502 (request 99)\n  - <html> Bad gateway </html>\n');
  });

  it('shows control characters in a message (a hostile table name) as escapes, never raw to the terminal', () => {
    const body = JSON.stringify({ errors: ['{TablesToInclude}: table [dbo].[\u001b[2J\u001b]0;owned\u0007x] is missing\u202e'], requestId: '7' });
    const { stderr } = renderResponse(response(404, body, { 'content-type': 'application/json' }), { raw: false });
    expect(stderr).toBe('Error: HTTP 404 (request 7)\n  - {TablesToInclude}: table [dbo].[\\x1B[2J\\x1B]0;owned\\x07x] is missing\\u202E\n');
  });

  it('prints only the status line for an empty error body without a request id', () => {
    expect(renderResponse(response(500, ''), { raw: false }).stderr).toBe('Error: HTTP 500\n');
  });
});

describe('renderResponse — success', () => {
  it('pretty-prints JSON', () => {
    const rendered = renderResponse(response(200, '{"replicationId":"r1","status":"Running","note":""}', { 'content-type': 'application/json' }), {
      raw: false,
    });
    expect(rendered).toEqual({
      exitCode: ExitCode.Ok,
      stdout: '{\n  "replicationId": "r1",\n  "status": "Running",\n  "note": ""\n}\n',
      stderr: '',
    });
  });

  it('prints an XML answer as the JSON a JSON call gets (one format, issue 40); --raw keeps the XML', () => {
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?><CreateWarehouseReplicationResponse><ReplicationId>r1</ReplicationId><Status>Running</Status><Note>Changes are read from the log.</Note></CreateWarehouseReplicationResponse>';
    expect(renderResponse(response(200, xml, { 'content-type': 'application/xml' }), { raw: false }).stdout).toBe(
      '{\n  "replicationId": "r1",\n  "status": "Running",\n  "note": "Changes are read from the log."\n}\n',
    );
    expect(renderResponse(response(200, xml, { 'content-type': 'application/xml' }), { raw: true }).stdout.toString()).toBe(xml);
    // Nested groups and repeated elements too.
    const nested = '<R><Warehouse><DatabaseSchema>dw</DatabaseSchema></Warehouse><Tables><Table><Name>a</Name></Table><Table><Name>b</Name></Table></Tables></R>';
    expect(JSON.parse(String(renderResponse(response(200, nested, { 'content-type': 'application/xml' }), { raw: false }).stdout))).toEqual({
      warehouse: { databaseSchema: 'dw' },
      tables: { table: [{ name: 'a' }, { name: 'b' }] },
    });
  });

  it('prints an empty 200 as OK', () => {
    expect(renderResponse(response(200, ''), { raw: false })).toEqual({ exitCode: ExitCode.Ok, stdout: 'OK (HTTP 200)\n', stderr: '' });
  });

  it('with --raw prints the body bytes exactly', () => {
    const body = '{"a":1}';
    const rendered = renderResponse(response(200, body, { 'content-type': 'application/json' }), { raw: true });
    expect(Buffer.isBuffer(rendered.stdout)).toBe(true);
    expect(rendered.stdout.toString()).toBe(body);
    expect(renderResponse(response(200, ''), { raw: true }).stdout.toString()).toBe('');
  });
});

describe('error body parsers', () => {
  it('accept Error elements directly under ErrorResponse and object messages in JSON', () => {
    expect(parseXmlErrorBody('<ErrorResponse><RequestId>1</RequestId><Error><Message>m</Message></Error></ErrorResponse>')).toEqual({
      requestId: '1',
      messages: ['m'],
    });
    expect(parseJsonErrorBody('{"errors":[{"message":"m1"},"m2"],"requestId":"abc"}')).toEqual({ requestId: 'abc', messages: ['m1', 'm2'] });
  });

  it('return undefined for bodies that are not error responses', () => {
    expect(parseXmlErrorBody('<Other/>')).toBeUndefined();
    expect(parseJsonErrorBody('[1,2]')).toBeUndefined();
    expect(parseJsonErrorBody('{"status":"x"}')).toBeUndefined();
    expect(parseJsonErrorBody('not json')).toBeUndefined();
  });
});
