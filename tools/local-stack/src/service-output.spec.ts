import { natsServerTerminalLine, outputFormatOf, terminalLine } from './service-output';

describe('terminalLine (issue 20: the "up" banner was buried in JSON log lines)', () => {
  const info = JSON.stringify({ level: 'info', time: '2026-11-26T10:00:00.000Z', service: 'stager', msg: 'batch staged', rows: 10 });
  const warning = JSON.stringify({ level: 'warn', time: '2026-11-26T10:00:00.000Z', service: 'loader', msg: 'load failed; retried', table: '[public].[t]', attempt: 2, error: { name: 'Error', message: 'boom' } });

  it('leaves out a service\'s info lines and shortens its warnings and errors', () => {
    expect(terminalLine(info, 'human')).toBeNull();
    expect(terminalLine(warning, 'human')).toBe('WARN load failed; retried table=[public].[t] attempt=2 error={"name":"Error","message":"boom"}');
  });

  it('shows text that is not a log line as it is: the demo narration, a stack trace', () => {
    expect(terminalLine('Demo replication 1 created from svc_live_source', 'human')).toBe('Demo replication 1 created from svc_live_source');
    expect(terminalLine('{ not json', 'human')).toBe('{ not json');
  });

  it('shows every line as it is with LOG_FORMAT=json', () => {
    expect(outputFormatOf({ LOG_FORMAT: 'json' })).toBe('json');
    expect(outputFormatOf({})).toBe('human');
    expect(terminalLine(info, 'json')).toBe(info);
  });
});

describe("natsServerTerminalLine (npm start's own nats-server)", () => {
  it('shows its warnings and errors without pid and time, leaves out its info lines, shows all with LOG_FORMAT=json', () => {
    const info = '[9997] 2026/11/28 21:39:57.275762 [INF] Server is ready';
    const error = '[9997] 2026/11/28 21:40:01.000001 [ERR] 127.0.0.1:50312 - cid:7 - authentication error';
    expect(natsServerTerminalLine(info, 'human')).toBeNull();
    expect(natsServerTerminalLine(error, 'human')).toBe('ERR 127.0.0.1:50312 - cid:7 - authentication error');
    expect(natsServerTerminalLine('nats-server: address already in use', 'human')).toBe('nats-server: address already in use');
    expect(natsServerTerminalLine(info, 'json')).toBe(info);
  });
});
