import { CertificateAuthority, type IssuedCertificate } from '@svc/crypto';

export type { IssuedCertificate } from '@svc/crypto';

/** A throwaway certificate authority in a directory of the test's own. */
export interface TestCertificateAuthority {
  certFile: string;
  /** The CA certificate's PEM, for a client's `ca` option. */
  certPem: string;
  /** A server certificate for 127.0.0.1, ::1 and localhost (plus `dnsNames`), with its own key. */
  issue(commonName: string, serial: number, dnsNames?: string[]): Promise<IssuedCertificate>;
}

/** Makes a CA (P-256 keys, valid two days) in `dir`, named `name` so that two CAs in one directory do not collide. */
export async function createTestCertificateAuthority(dir: string, name = 'test-ca'): Promise<TestCertificateAuthority> {
  const authority = CertificateAuthority.create(dir, { name, subject: `svc ${name}`, days: 2 });
  return Promise.resolve({
    certFile: authority.certFile,
    certPem: authority.certPem,
    issue: async (commonName, serial, dnsNames = []) =>
      Promise.resolve(authority.issue({ name: `${commonName}-${serial}`, commonName, serial, days: 2, hosts: ['127.0.0.1', '::1', 'localhost', ...dnsNames] })),
  });
}
