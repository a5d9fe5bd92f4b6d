import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const repoRoot = join(__dirname, '..', '..', '..');
const composeFile = readFileSync(join(repoRoot, 'docker-compose.yml'), 'utf8');

/** The compose services given deploy/secrets/env/s3.env, read from the `env_file` line of each service block. */
function servicesWithS3Identity(): string[] {
  const holders: string[] = [];
  let service = '';
  for (const line of composeFile.split('\n')) {
    const block = /^ {2}([a-z][a-z0-9-]*):\s*$/.exec(line);
    if (block?.[1] !== undefined) service = block[1];
    if (/^\s+env_file:/.test(line) && line.includes('deploy/secrets/env/s3.env')) holders.push(service);
  }
  return holders.sort();
}

/** Every non-test TypeScript file under an app's src. */
function sourcesOf(app: string): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !/\.(spec|integration-spec)\.ts$/.test(name)) files.push(readFileSync(path, 'utf8'));
    }
  };
  walk(join(repoRoot, 'apps', app, 'src'));
  return files;
}

/** Issue 36 item 8: the services' own S3 identity goes only where S3 is reached. */
describe("compose's S3 identity of the services", () => {
  it('is given to the registry (bucket probe), the stager and the loader, and to minio-init which creates it; to nothing else', () => {
    expect(servicesWithS3Identity()).toEqual(['job-registry', 'loader', 'minio-init', 'stager']);
  });

  it.each(['extractor', 'api-gateway'])('is not needed by the %s: its code reaches no bucket (give it s3.env if that changes)', (app) => {
    for (const source of sourcesOf(app)) {
      expect(source).not.toMatch(/@svc\/storage|\bs3:\s*config\.s3|settings\.s3\b/);
    }
  });
});
