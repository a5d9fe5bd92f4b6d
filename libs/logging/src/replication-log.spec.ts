import { JsonLogger, type LogLevel } from './json-logger';
import { replicationLog } from './replication-log';

interface Line {
  level: LogLevel;
  msg: string;
  [field: string]: unknown;
}

function capture(minLevel: LogLevel = 'debug'): { logger: JsonLogger; lines: Line[] } {
  const lines: Line[] = [];
  return { logger: new JsonLogger('stager', minLevel, (line) => lines.push(JSON.parse(line) as Line)), lines };
}

function writeOneOfEach(log: ReturnType<typeof replicationLog>): void {
  log.debug('batch was already in staging', { batchId: 'b-1' });
  log.info('deleted expired batch files', { objects: 3 });
  log.warn('bucket answered slowly', { ms: 900 });
  log.error('cannot reach the bucket', { attempt: 2 });
}

describe('replicationLog', () => {
  it('writes only warnings and errors when the replication logs errors only', () => {
    const { logger, lines } = capture();
    writeOneOfEach(replicationLog(logger, { isLogErrorsOnly: true }));
    expect(lines.map(({ level, msg }) => [level, msg])).toEqual([
      ['warn', 'bucket answered slowly'],
      ['error', 'cannot reach the bucket'],
    ]);
  });

  it('writes every level, with its fields, when the replication logs everything', () => {
    const { logger, lines } = capture();
    writeOneOfEach(replicationLog(logger, { isLogErrorsOnly: false }));
    expect(lines).toEqual([
      expect.objectContaining({ level: 'debug', service: 'stager', msg: 'batch was already in staging', batchId: 'b-1' }),
      expect.objectContaining({ level: 'info', msg: 'deleted expired batch files', objects: 3 }),
      expect.objectContaining({ level: 'warn', msg: 'bucket answered slowly', ms: 900 }),
      expect.objectContaining({ level: 'error', msg: 'cannot reach the bucket', attempt: 2 }),
    ]);
  });

  it("still honours the service logger's minimum level", () => {
    const { logger, lines } = capture('warn');
    writeOneOfEach(replicationLog(logger, { isLogErrorsOnly: false }));
    expect(lines.map(({ level }) => level)).toEqual(['warn', 'error']);
  });

  it('writes lines without fields', () => {
    const { logger, lines } = capture();
    replicationLog(logger, { isLogErrorsOnly: false }).info('seed finished');
    expect(lines).toEqual([expect.objectContaining({ level: 'info', msg: 'seed finished' })]);
  });

  it('keeps redacting secrets', () => {
    const { logger, lines } = capture();
    replicationLog(logger, { isLogErrorsOnly: true }).error('cannot connect', { connectionString: 'postgres://app:hunter2@db/x' });
    expect(JSON.stringify(lines)).not.toContain('hunter2');
  });
});
