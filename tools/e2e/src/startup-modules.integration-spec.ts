import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const repoRoot = resolve(__dirname, '..', '..', '..');

/** The packages under node_modules a service's module graph loads before it does anything (from dist/, as it runs). */
function packagesLoadedBy(service: string): string[] {
  const script = `
    require(${JSON.stringify(join(repoRoot, 'dist', 'apps', service, 'src', 'app.module.js'))});
    const names = new Set(Object.keys(require.cache).map((file) => /node_modules\\/((@[^/]+\\/)?[^/]+)/.exec(file)?.[1]).filter(Boolean));
    process.stdout.write(JSON.stringify([...names]));`;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', cwd: repoRoot });
  if (run.status !== 0) throw new Error(`loading ${service} failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as string[];
}

/*
 * Every start of a service costs CPU before it serves (a restarted worker, a scaled-out stage, every test stack): a driver
 * that only some deployments use is loaded when it is first used (libs/sqlserver/common/src/mssql-driver.ts).
 */
describe('what a service loads at start', () => {
  it.each(['job-registry', 'extractor', 'stager', 'loader', 'api-gateway'])('%s does not load the SQL Server driver until a SQL Server connection is made', (service) => {
    const loaded = packagesLoadedBy(service);
    expect(loaded).toContain('@nestjs/core');
    expect(loaded.filter((name) => name === 'mssql' || name === 'tedious')).toEqual([]);
  });
});
