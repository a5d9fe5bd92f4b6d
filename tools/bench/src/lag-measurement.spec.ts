import { parsePgbenchReport } from './lag-measurement';

const REPORT = `pgbench (15.20 (Debian 15.20-0+deb12u1))
transaction type: <builtin: TPC-B (sort of)>
scaling factor: 20
query mode: simple
number of clients: 4
number of threads: 1
maximum number of tries: 1
duration: 60 s
number of transactions actually processed: 48712
number of failed transactions: 0 (0.000%)
latency average = 4.925 ms
initial connection time = 12.345 ms
tps = 812.123456 (without initial connection time)
`;

describe('parsePgbenchReport', () => {
  it("reads tps, average latency and the transaction count from pgbench's report", () => {
    expect(parsePgbenchReport(REPORT)).toEqual({ tps: 812.123456, latencyMs: 4.925, transactions: 48712 });
  });

  it('gives NaN for what the output lacks', () => {
    const parsed = parsePgbenchReport('nothing useful');
    expect(parsed.tps).toBeNaN();
    expect(parsed.transactions).toBeNaN();
  });
});
