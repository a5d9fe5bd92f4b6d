import type { SubtleDigests } from '@svc/signing/core';

/** What of `window` decides whether the console can sign: browsers give WebCrypto's `subtle` to secure contexts only. */
export interface SigningHost {
  isSecureContext: boolean;
  crypto?: { subtle?: SubtleDigests | undefined } | undefined;
}

/**
 * WebCrypto when the page may sign, else null. A page over plain HTTP from a host other than localhost is not a
 * secure context: `crypto.subtle` is then undefined, and where a browser still exposes it (flags, old versions) the
 * console does not sign there either, since its key and the requests would cross the network in clear.
 */
export function signingCrypto(host: SigningHost): SubtleDigests | null {
  if (!host.isSecureContext) return null;
  return host.crypto?.subtle ?? null;
}

/** The sign-in page's explanation, one paragraph per entry, for a page opened at `origin` that cannot sign. */
export function insecureContextExplanation(origin: string): string[] {
  return [
    `This console cannot sign requests here: it signs every request in your browser with WebCrypto, which browsers only give to secure contexts, and ${origin} is not one (plain HTTP to a host other than localhost).`,
    'Open it over HTTPS (configure TLS_CERT_FILE and TLS_KEY_FILE on the api-gateway), or on this machine at http://localhost or http://127.0.0.1 (for example through an SSH tunnel to the gateway port).',
  ];
}
