import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where issueCertificates put its PEM files. */
export interface CertificateFiles {
  caFile: string;
  /** The CA's private key: needed only to issue more certificates, so keep it offline once done. */
  caKeyFile: string;
  certificates: Record<string, { certFile: string; keyFile: string }>;
}

export interface CertificateRequest {
  /** File name stem: `<name>.pem` and `<name>-key.pem`. */
  name: string;
  /** Host names and IP addresses the certificate is valid for (subjectAltName). */
  hosts: readonly string[];
}

const CA_DAYS = 3650;
const LEAF_DAYS = 825;

/**
 * A private CA and certificates it signed (ECDSA P-256), made with the openssl command. Leaf certificates serve
 * both ends of TLS (serverAuth and clientAuth): a NATS node's certificate is also its client certificate on the
 * cluster's routes. Private keys are written readable by their owner only.
 */
export function issueCertificates(dir: string, requests: readonly CertificateRequest[], caName = 'svc-replication private CA'): CertificateFiles {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const caFile = join(dir, 'ca.pem');
  const caKeyFile = join(dir, 'ca-key.pem');
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', caKeyFile, '-out', caFile, '-days', String(CA_DAYS),
    '-subj', `/CN=${caName}`, '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  chmodSync(caKeyFile, 0o600);
  const scratch = mkdtempSync(join(tmpdir(), 'svc-certs-'));
  try {
    const certificates: CertificateFiles['certificates'] = {};
    for (const request of requests) {
      const certFile = join(dir, `${request.name}.pem`);
      const keyFile = join(dir, `${request.name}-key.pem`);
      const csr = join(scratch, `${request.name}.csr`);
      const extensions = join(scratch, `${request.name}.ext`);
      const altNames = request.hosts.map((host) => (isIP(host) ? `IP:${host}` : `DNS:${host}`)).join(',');
      writeFileSync(extensions, [`subjectAltName=${altNames}`, 'basicConstraints=CA:FALSE', 'keyUsage=critical,digitalSignature,keyAgreement', 'extendedKeyUsage=serverAuth,clientAuth', ''].join('\n'));
      openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-out', csr, '-subj', `/CN=${request.hosts[0] ?? request.name}`]);
      openssl(['x509', '-req', '-in', csr, '-CA', caFile, '-CAkey', caKeyFile, '-set_serial', `0x${randomBytes(16).toString('hex')}`, '-out', certFile, '-days', String(LEAF_DAYS), '-extfile', extensions]);
      chmodSync(keyFile, 0o600);
      certificates[request.name] = { certFile, keyFile };
    }
    return { caFile, caKeyFile, certificates };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function openssl(args: string[]): void {
  try {
    execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString('utf8').trim();
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(missing ? 'making certificates needs the openssl command, which is not installed' : `openssl ${args[0] ?? ''} failed: ${stderr ?? String(error)}`);
  }
}
