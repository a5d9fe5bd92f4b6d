import { prepareStaging } from './staging-preparation';

const target = (source: string, staging: string, replicateCompatibilityLevel = true) => ({
  source: { connectionString: source, encryptDataInTransit: false },
  staging: { connectionString: staging, encryptDataInTransit: false },
  replicateCompatibilityLevel,
});

describe('prepareStaging', () => {
  it('has nothing to do for a PostgreSQL staging database', async () => {
    expect(await prepareStaging(target('postgres://a@127.0.0.1:1/s', 'postgres://a@127.0.0.1:1/t'), 2000)).toEqual({ problems: [], note: '' });
  });

  it('answers a SQL Server it cannot reach with a field message that quotes nothing of the strings', async () => {
    const source = 'Server=127.0.0.1,1;Database=sales;User ID=app;Password=Source-Secret-1;';
    const staging = 'Server=127.0.0.1,1;Database=staging;User ID=app;Password=Staging-Secret-2;';
    const prepared = await prepareStaging(target(source, staging), 5000);
    expect(prepared.note).toBe('');
    expect(prepared.problems).toEqual(['{Staging\\ReplicateCompatibilityLevel}: cannot read the compatibility levels: cannot reach the server (refused, timed out, unknown host or TLS failed)']);
    expect(JSON.stringify(prepared)).not.toMatch(/Secret|sales|staging\b/);
  });
});
