import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import type { TlsFilePaths } from '../config/gateway-config';

/** The PEM contents handed to Node's TLS server. */
export interface TlsCredentials {
  cert: Buffer;
  key: Buffer;
}

/** What the logs say about a certificate in use: all public. */
export interface CertificateSummary {
  subject: string;
  serialNumber: string;
  validTo: string;
}

export interface LoadedTls {
  credentials: TlsCredentials;
  certificate: CertificateSummary;
}

/** A certificate/key pair that cannot be served; the message names the files, never their contents. */
export class TlsFilesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TlsFilesError';
  }
}

async function readSetting(setting: string, path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new TlsFilesError(`${setting}: cannot read ${path} (${code ?? 'unreadable'})`);
  }
}

/** OpenSSL's reasons (`key values mismatch`, `no start line`) name what is wrong without quoting the PEM. */
function opensslReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^error:[0-9A-F]+:/, '');
}

/**
 * Reads the certificate and key and checks that Node's TLS accepts them as a pair, so a server is never
 * handed files it would fail on at the first handshake.
 */
export async function loadTlsCredentials(paths: TlsFilePaths): Promise<LoadedTls> {
  const [cert, key] = await Promise.all([readSetting('TLS_CERT_FILE', paths.certFile), readSetting('TLS_KEY_FILE', paths.keyFile)]);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch (error) {
    throw new TlsFilesError(`TLS_CERT_FILE: ${paths.certFile} is not a PEM certificate (${opensslReason(error)})`);
  }
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    throw new TlsFilesError(`TLS_KEY_FILE: ${paths.keyFile} is not the private key of the certificate in ${paths.certFile} (${opensslReason(error)})`);
  }
  return {
    credentials: { cert, key },
    certificate: { subject: certificate.subject.replace(/\n/g, ', '), serialNumber: certificate.serialNumber, validTo: certificate.validTo },
  };
}
