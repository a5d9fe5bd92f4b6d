import { ConfigError, EnvReader } from './env-reader';
import { readNatsSettings } from './common';

function read(environment: Record<string, string>) {
  const env = new EnvReader(environment);
  const settings = readNatsSettings(env);
  env.done();
  return settings;
}

function problemsOf(environment: Record<string, string>): string[] {
  try {
    read(environment);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('readNatsSettings', () => {
  it('reads the installation, and refuses a name NATS subjects and stream names could not carry', () => {
    expect(read({ SVC_INSTALLATION: 'blue' }).installation).toBe('blue');
    expect(() => read({ SVC_INSTALLATION: 'blue.green' })).toThrow(/SVC_INSTALLATION: must be empty \(the default installation\) or 1 to 16 lowercase letters/);
  });

  it('defaults to one local server and one copy of each stream', () => {
    expect(read({})).toEqual({ servers: ['nats://127.0.0.1:4222'], requestTimeoutMs: 30000, streamReplicas: 1, ackWaitMs: 15000, security: {}, installation: '' });
  });

  it('reads how long a taken unit of work may go without a heartbeat, in seconds', () => {
    expect(read({ NATS_ACK_WAIT_SECONDS: '45' }).ackWaitMs).toBe(45000);
    expect(problemsOf({ NATS_ACK_WAIT_SECONDS: '2' })).toEqual(['NATS_ACK_WAIT_SECONDS: must be at least 3']);
  });

  it('reads the servers of a cluster, separated by commas, and the stream replicas', () => {
    const settings = read({ NATS_URL: 'nats://nats-1:4222, nats://nats-2:4222,nats://nats-3:4222', NATS_STREAM_REPLICAS: '3' });
    expect(settings.servers).toEqual(['nats://nats-1:4222', 'nats://nats-2:4222', 'nats://nats-3:4222']);
    expect(settings.streamReplicas).toBe(3);
  });

  it.each([
    ['0', 'NATS_STREAM_REPLICAS: must be at least 1'],
    ['6', 'NATS_STREAM_REPLICAS: must be at most 5'],
    ['three', "NATS_STREAM_REPLICAS: must be an integer, got 'three'"],
  ])('refuses NATS_STREAM_REPLICAS=%s', (value, problem) => {
    expect(problemsOf({ NATS_STREAM_REPLICAS: value })).toEqual([problem]);
  });

  it('names the bad entry of a server list without echoing it (URLs may carry passwords)', () => {
    const problems = problemsOf({ NATS_URL: 'nats://u:pw-one@a:4222,http://u:pw-two@b:4222,,not a url' });
    expect(problems).toEqual(['NATS_URL (entry 2): must be a nats or tls or ws or wss URL', 'NATS_URL (entry 3): is not a valid URL']);
    expect(problems.join(' ')).not.toMatch(/pw-/);
  });

  it('refuses a list of nothing but commas', () => {
    expect(problemsOf({ NATS_URL: ' , ,' })).toEqual(['NATS_URL: is empty']);
  });
});
