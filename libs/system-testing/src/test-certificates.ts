import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** Debian's openssl; OPENSSL_PATH names another. */
const OPENSSL = process.env['OPENSSL_PATH'] ?? 'openssl';

export interface IssuedCertificate {
  certFile: string;
  keyFile: string;
  /** Upper-case hex, as Node's X509Certificate and getPeerCertificate() print it. */
  serialNumber: string;
  commonName: string;
}

/** A throwaway certificate authority in a directory of the test's own, made with the openssl command line. */
export interface TestCertificateAuthority {
  certFile: string;
  /** The CA certificate's PEM, for a client's `ca` option. */
  certPem: string;
  /** A server certificate for 127.0.0.1, ::1 and localhost (plus `dnsNames`), with its own key. */
  issue(commonName: string, serial: number, dnsNames?: string[]): Promise<IssuedCertificate>;
}

/** Makes a CA (P-256 keys, valid two days) in `dir`, named `name` so that two CAs in one directory do not collide. */
export async function createTestCertificateAuthority(dir: string, name = 'test-ca'): Promise<TestCertificateAuthority> {
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  await run(OPENSSL, [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-keyout', keyFile, '-out', certFile, '-subj', `/CN=svc ${name}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  return {
    certFile,
    certPem: await readFile(certFile, 'utf8'),
    issue: async (commonName, serial, dnsNames = []) => {
      const base = join(dir, `${commonName}-${serial}`);
      const extensions = `${base}.ext`;
      const altNames = ['IP:127.0.0.1', 'IP:::1', 'DNS:localhost', ...dnsNames.map((dns) => `DNS:${dns}`)].join(',');
      await writeFile(extensions, `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=${altNames}\n`);
      await run(OPENSSL, ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', `/CN=${commonName}`]);
      await run(OPENSSL, [
        'x509', '-req', '-in', `${base}.csr`, '-CA', certFile, '-CAkey', keyFile, '-set_serial', String(serial),
        '-days', '2', '-extfile', extensions, '-out', `${base}.crt`,
      ]);
      const serialNumber = serial.toString(16).toUpperCase();
      return { certFile: `${base}.crt`, keyFile: `${base}.key`, serialNumber: serialNumber.length % 2 ? `0${serialNumber}` : serialNumber, commonName };
    },
  };
}
