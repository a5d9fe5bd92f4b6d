import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CertificateRequest {
  /** File name stem: `<name>.pem` and `<name>-key.pem`. */
  name: string;
  /** Host names and IP addresses the certificate is valid for (subjectAltName). */
  hosts: readonly string[];
  /** The subject's common name; the first host by default. */
  commonName?: string;
  /** A serial number of the caller's choosing (tests that tell certificates apart); random by default. */
  serial?: number;
  days?: number;
}

export interface IssuedCertificate {
  certFile: string;
  keyFile: string;
  /** Upper-case hex with an even number of digits, as Node's X509Certificate prints it. */
  serialNumber: string;
  commonName: string;
}

const CA_DAYS = 3650;
const LEAF_DAYS = 825;

/**
 * A private certificate authority made with the openssl command (ECDSA P-256). Leaf certificates serve both ends of
 * TLS (serverAuth and clientAuth): a NATS node's certificate is also its client certificate on the cluster's routes.
 * Private keys are written readable by their owner only.
 */
export class CertificateAuthority {
  private constructor(
    private readonly dir: string,
    readonly certFile: string,
    /** Needed only to issue more certificates: keep it offline once done. */
    readonly keyFile: string,
  ) {}

  /** Makes the CA's key and self-signed certificate in `dir` as `<name>.pem` and `<name>-key.pem`. */
  static create(dir: string, options: { name?: string; subject?: string; days?: number } = {}): CertificateAuthority {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const name = options.name ?? 'ca';
    const certFile = join(dir, `${name}.pem`);
    const keyFile = join(dir, `${name}-key.pem`);
    openssl([
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-out', certFile],
      ...['-days', String(options.days ?? CA_DAYS), '-subj', `/CN=${options.subject ?? 'svc-replication private CA'}`],
      ...['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
    ]);
    chmodSync(keyFile, 0o600);
    return new CertificateAuthority(dir, certFile, keyFile);
  }

  get certPem(): string {
    return readFileSync(this.certFile, 'utf8');
  }

  issue(request: CertificateRequest): IssuedCertificate {
    const certFile = join(this.dir, `${request.name}.pem`);
    const keyFile = join(this.dir, `${request.name}-key.pem`);
    const commonName = request.commonName ?? request.hosts[0] ?? request.name;
    const serial = request.serial === undefined ? randomBytes(16).toString('hex') : request.serial.toString(16);
    const scratch = mkdtempSync(join(tmpdir(), 'svc-certificate-'));
    try {
      const csr = join(scratch, 'request.csr');
      const extensions = join(scratch, 'request.ext');
      const altNames = request.hosts.map((host) => (isIP(host) ? `IP:${host}` : `DNS:${host}`)).join(',');
      writeFileSync(extensions, [`subjectAltName=${altNames}`, 'basicConstraints=CA:FALSE', 'keyUsage=critical,digitalSignature,keyAgreement', 'extendedKeyUsage=serverAuth,clientAuth', ''].join('\n'));
      openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-out', csr, '-subj', `/CN=${commonName}`]);
      openssl([
        ...['x509', '-req', '-in', csr, '-CA', this.certFile, '-CAkey', this.keyFile, '-set_serial', `0x${serial}`],
        ...['-out', certFile, '-days', String(request.days ?? LEAF_DAYS), '-extfile', extensions],
      ]);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    chmodSync(keyFile, 0o600);
    const hex = serial.replace(/^0+(?=.)/, '').toUpperCase();
    return { certFile, keyFile, serialNumber: hex.length % 2 === 1 ? `0${hex}` : hex, commonName };
  }
}

function openssl(args: string[]): void {
  try {
    execFileSync(process.env['OPENSSL_PATH'] ?? 'openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString('utf8').trim();
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(missing ? 'making certificates needs the openssl command, which is not installed' : `openssl ${args[0] ?? ''} failed: ${stderr ?? String(error)}`);
  }
}
