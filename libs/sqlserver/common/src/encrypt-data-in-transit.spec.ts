import { sqlServerAccess } from './sqlserver-access';
import { startTdsServerDouble, type TdsServerDouble } from './testing';

/**
 * EncryptDataInTransit=false becomes tedious's encrypt: false (sql-server-config.ts), which offers ENCRYPT_NOT_SUP
 * in PRELOGIN (node_modules/tedious/lib/prelogin-payload.js:108-111) and negotiates TLS only when the server answers
 * ON or REQ, refusing with EENCRYPT then (node_modules/tedious/lib/connection.js:2263-2265). MS-TDS 2.2.6.5
 * (https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-tds/60f56408-0188-4cd5-8b90-25c6f2423868):
 * a server without Force Encryption answers NOT_SUP and the login goes unencrypted; a server that forces
 * encryption (and Azure SQL, always) answers ENCRYPT_REQ.
 */
describe('EncryptDataInTransit=false', () => {
  let server: TdsServerDouble | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const connectionString = (port: number) => `Server=127.0.0.1,${port};Database=shop;User Id=replicator;Password=secret`;

  it('is refused by a server that forces encryption with a reason naming EncryptDataInTransit, not "cannot reach"', async () => {
    server = await startTdsServerDouble({ encryption: 'required', loginErrors: [] });
    const reason = await sqlServerAccess.probe(connectionString(server.port), { encrypt: false, timeoutMs: 5000 });
    expect(reason).toBe('the server requires encryption: set EncryptDataInTransit to true');
    expect(server.receivedTypes).toEqual([0x12]);
  });

  it('sends the login packet unencrypted to a server that does not force encryption (as the README says)', async () => {
    server = await startTdsServerDouble({ encryption: 'not-supported', loginErrors: [{ number: 18456, message: "Login failed for user 'replicator'." }] });
    const reason = await sqlServerAccess.probe(connectionString(server.port), { encrypt: false, timeoutMs: 5000 });
    expect(reason).toBe('authentication failed');
    // PRELOGIN then LOGIN7 on the plain socket: no TLS handshake (0x12 carrying TLS) came between them.
    expect(server.receivedTypes).toEqual([0x12, 0x10]);
  });
});
