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

describe('loadGatewayConfig edge settings', () => {
  const problemsOf = (env: Record<string, string>): string[] => {
    try {
      loadGatewayConfig(env);
      return [];
    } catch (error) {
      return error instanceof ConfigError ? error.problems : ['not a ConfigError'];
    }
  };

  it('checks no Host and serves no /metrics unless told to', () => {
    const config = loadGatewayConfig({});
    expect(config.allowedHosts).toBeUndefined();
    expect(config.metricsToken).toBeUndefined();
  });

  it('reads SVC_ALLOWED_HOSTS and METRICS_TOKEN', () => {
    const config = loadGatewayConfig({ SVC_ALLOWED_HOSTS: 'api.example.com, 10.0.0.7:8443', METRICS_TOKEN: 'a-long-enough-token' });
    expect(config.allowedHosts).toEqual([
      { host: 'api.example.com', port: null },
      { host: '10.0.0.7', port: 8443 },
    ]);
    expect(config.metricsToken).toBe('a-long-enough-token');
  });

  it('refuses an unreadable host entry, a list of none and a short token, without echoing the token', () => {
    expect(problemsOf({ SVC_ALLOWED_HOSTS: 'api.example.com,bad host', METRICS_TOKEN: 'short-secret' })).toEqual([
      "SVC_ALLOWED_HOSTS: 'bad host' is not a host or host:port",
      'METRICS_TOKEN: must be at least 16 characters',
    ]);
    expect(problemsOf({ SVC_ALLOWED_HOSTS: ' , ' })).toEqual(['SVC_ALLOWED_HOSTS: names no host']);
  });
});

describe('loadGatewayConfig LOG_LEVEL (issue 20: LOG_LEVEL=loud was accepted silently)', () => {
  it('refuses a level it does not know, naming the choices', () => {
    let thrown: unknown;
    try {
      loadGatewayConfig({ LOG_LEVEL: 'loud' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).problems).toEqual(['LOG_LEVEL: must be one of debug, info, warn, error']);
  });

  it('takes a known level in any case', () => {
    expect(loadGatewayConfig({ LOG_LEVEL: 'WARN' }).logLevel).toBe('warn');
  });
});

describe('loadGatewayConfig MAX_CLOCK_SKEW_SECONDS (issue 36: it was unbounded)', () => {
  const problemsOf = (env: Record<string, string>): string[] => {
    try {
      loadGatewayConfig(env);
      return [];
    } catch (error) {
      return error instanceof ConfigError ? error.problems : ['not a ConfigError'];
    }
  };

  it('allows 15 minutes by default and any window from 1 s up to 15 minutes', () => {
    expect(loadGatewayConfig({}).maxClockSkewMs).toBe(900_000);
    expect(loadGatewayConfig({ MAX_CLOCK_SKEW_SECONDS: '1' }).maxClockSkewMs).toBe(1000);
    expect(loadGatewayConfig({ MAX_CLOCK_SKEW_SECONDS: '900' }).maxClockSkewMs).toBe(900_000);
  });

  it.each(['901', '86400', '315360000'])('refuses %s s, naming the rule: a captured signature would stay good that long', (seconds) => {
    expect(problemsOf({ MAX_CLOCK_SKEW_SECONDS: seconds })).toEqual([
      'MAX_CLOCK_SKEW_SECONDS: must be at most 900 (15 minutes, as AWS Signature Version 4): a signed request is accepted, and its signature kept against replays, for that long either side of the server clock',
    ]);
  });

  it('refuses a window of nothing', () => {
    expect(problemsOf({ MAX_CLOCK_SKEW_SECONDS: '0' })).toEqual(['MAX_CLOCK_SKEW_SECONDS: must be at least 1']);
  });
});
