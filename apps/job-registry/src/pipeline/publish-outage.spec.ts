import { PublishOutage } from './publish-outage';

describe('PublishOutage', () => {
  const order = { replicationId: 'r1', tableName: '[public].[orders]' };

  function logged() {
    const lines: { level: string; message: string; fields: unknown }[] = [];
    const sink = (level: string) => (message: unknown, fields?: unknown) => lines.push({ level, message: String(message), fields });
    return { lines, logger: { error: sink('error'), warn: sink('warn'), debug: sink('debug') } };
  }

  it('logs one error per outage however many publishes the bus refuses, and one line when publishing works again', () => {
    const { lines, logger } = logged();
    let now = 1000;
    const outage = new PublishOutage(logger, () => now);
    for (let pass = 0; pass < 50; pass += 1) outage.failed(order, new Error('503'));
    now += 4500;
    outage.succeeded();
    outage.succeeded();

    expect(lines.filter((line) => line.level === 'error')).toHaveLength(1);
    expect(lines.filter((line) => line.level === 'debug')).toHaveLength(49);
    expect(lines.filter((line) => line.level === 'warn')).toEqual([{ level: 'warn', message: 'publishing work again', fields: { afterSeconds: 4.5, refusedPublishes: 50 } }]);
  });

  it('logs the next outage as an error again', () => {
    const { lines, logger } = logged();
    const outage = new PublishOutage(logger);
    outage.failed(order, new Error('503'));
    outage.succeeded();
    outage.failed(order, new Error('timeout'));
    expect(lines.filter((line) => line.level === 'error')).toHaveLength(2);
  });

  it('says nothing while publishing works', () => {
    const { lines, logger } = logged();
    new PublishOutage(logger).succeeded();
    expect(lines).toEqual([]);
  });
});
