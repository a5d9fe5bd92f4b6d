import { CliFailure, ExitCode } from '../exit-codes';
import { refusePlainHttpBeyondLoopback } from './plain-http-guard';

function refusal(endpoint: string, insecure = false): CliFailure | undefined {
  try {
    refusePlainHttpBeyondLoopback(endpoint, insecure);
    return undefined;
  } catch (error) {
    if (error instanceof CliFailure) return error;
    throw error;
  }
}

describe('refusePlainHttpBeyondLoopback', () => {
  it.each(['http://127.0.0.1:8080', 'http://127.3.4.5:8080/prefix', 'http://localhost:8080', 'http://LOCALHOST', 'http://[::1]:8080', 'http://[::ffff:127.0.0.1]:80'])(
    'allows plain HTTP on loopback: %s',
    (endpoint) => {
      expect(refusal(endpoint)).toBeUndefined();
    },
  );

  it.each(['http://10.0.0.5:8080', 'http://gateway.example.com', 'http://0.0.0.0:8080', 'http://[fe80::1]:8080', 'http://127.0.0.1.nip.io:8080'])(
    'refuses plain HTTP beyond loopback: %s, with the configuration exit code',
    (endpoint) => {
      const failure = refusal(endpoint);
      expect(failure?.exitCode).toBe(ExitCode.Configuration);
      expect(failure?.message).toContain(`over plain HTTP to ${new URL(endpoint).origin}`);
      expect(failure?.message).toContain('Use an https:// endpoint, or pass --insecure');
    },
  );

  it('names the endpoint without the credentials a URL may carry', () => {
    const message = refusal('http://ops:hunter2@10.0.0.5:8080/svc')?.message ?? '';
    expect(message).toContain('http://10.0.0.5:8080');
    expect(message).not.toContain('hunter2');
  });

  it('sends anyway with --insecure', () => {
    expect(refusal('http://10.0.0.5:8080', true)).toBeUndefined();
  });

  it.each(['https://10.0.0.5:8443', 'https://gateway.example.com'])('allows HTTPS anywhere: %s', (endpoint) => {
    expect(refusal(endpoint)).toBeUndefined();
  });
});
