import { webcrypto } from 'node:crypto';
import { insecureContextExplanation, signingCrypto } from './signing-context';

describe('signingCrypto', () => {
  const subtle = webcrypto.subtle;

  it('gives WebCrypto to a secure context that has it', () => {
    expect(signingCrypto({ isSecureContext: true, crypto: { subtle } })).toBe(subtle);
  });

  it('gives nothing outside a secure context, even where the browser still exposes crypto.subtle', () => {
    expect(signingCrypto({ isSecureContext: false, crypto: { subtle } })).toBeNull();
    expect(signingCrypto({ isSecureContext: false, crypto: { subtle: undefined } })).toBeNull();
  });

  it('gives nothing when crypto.subtle is missing, secure context or not', () => {
    expect(signingCrypto({ isSecureContext: true, crypto: {} })).toBeNull();
    expect(signingCrypto({ isSecureContext: true })).toBeNull();
  });
});

describe('insecureContextExplanation', () => {
  it('names the origin, why WebCrypto is missing, and both ways out', () => {
    const text = insecureContextExplanation('http://10.0.0.5:8080').join('\n');
    expect(text).toContain('http://10.0.0.5:8080 is not one');
    expect(text).toContain('WebCrypto, which browsers only give to secure contexts');
    expect(text).toContain('Open it over HTTPS (configure TLS_CERT_FILE and TLS_KEY_FILE on the api-gateway)');
    expect(text).toContain('http://localhost or http://127.0.0.1');
  });
});
