import { ConfigError } from '@svc/config';
import { loadGatewayConfig } from './gateway-config';

describe('loadGatewayConfig TLS settings', () => {
  it('serves plain HTTP when neither TLS file is given', () => {
    expect(loadGatewayConfig({}).tls).toBeUndefined();
  });

  it('takes the certificate and key files together', () => {
    expect(loadGatewayConfig({ TLS_CERT_FILE: '/etc/svc/tls.crt', TLS_KEY_FILE: '/etc/svc/tls.key' }).tls).toEqual({
      certFile: '/etc/svc/tls.crt',
      keyFile: '/etc/svc/tls.key',
    });
  });

  it.each([
    [{ TLS_CERT_FILE: '/etc/svc/tls.crt' }, 'TLS_KEY_FILE: is required when TLS_CERT_FILE is set'],
    [{ TLS_KEY_FILE: '/etc/svc/tls.key' }, 'TLS_CERT_FILE: is required when TLS_KEY_FILE is set'],
  ])('refuses one file without the other (%o), listed with the other bad values', (tlsEnv, problem) => {
    let thrown: unknown;
    try {
      loadGatewayConfig({ ...tlsEnv, PORT: 'eighty' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).problems).toEqual(["PORT: must be an integer, got 'eighty'", problem]);
  });
});
