import { parseDockerignore } from './dockerignore';

/** The rules as https://docs.docker.com/build/concepts/context/#dockerignore-files describes them, with its examples. */
describe('parseDockerignore', () => {
  it('anchors a name at the root of the context and leaves out everything under a directory it names', () => {
    const ignore = parseDockerignore('tmp\n/deploy/secrets/\n');
    expect(ignore.excludes('tmp')).toBe(true);
    expect(ignore.excludes('tmp/development-key.json')).toBe(true);
    expect(ignore.excludes('deploy/secrets/env/operator.env')).toBe(true);
    expect(ignore.excludes('tools/tmp/file.ts')).toBe(false);
    expect(ignore.excludes('deploy/README.md')).toBe(false);
    expect(ignore.excludes('tmpfile')).toBe(false);
  });

  it('matches `*` and `?` within one path segment', () => {
    const ignore = parseDockerignore('# comment\n*/temp*\n*/*/temp*\ntemp?\n');
    expect(ignore.excludes('somedir/temporary.txt')).toBe(true);
    expect(ignore.excludes('somedir/temp')).toBe(true);
    expect(ignore.excludes('somedir/subdir/temporary.txt')).toBe(true);
    expect(ignore.excludes('tempa')).toBe(true);
    expect(ignore.excludes('temporary.txt')).toBe(false);
    expect(ignore.excludes('a/b/c/temporary.txt')).toBe(false);
    expect(ignore.excludes('# comment')).toBe(false);
  });

  it('matches `**` across any number of directories, none included', () => {
    const ignore = parseDockerignore('**/*.pem\ndocs/**\n');
    expect(ignore.excludes('ca.pem')).toBe(true);
    expect(ignore.excludes('deploy/secrets/certs/ca-key.pem')).toBe(true);
    expect(ignore.excludes('docs/console/replication.png')).toBe(true);
    expect(ignore.excludes('pem')).toBe(false);
    expect(ignore.excludes('examples/create.json')).toBe(false);
  });

  it('lets the last matching line decide, `!` making an exception', () => {
    const ignore = parseDockerignore('*.md\n!README*.md\nREADME-secret.md\n');
    expect(ignore.excludes('CHANGES.md')).toBe(true);
    expect(ignore.excludes('README.md')).toBe(false);
    expect(ignore.excludes('README-secret.md')).toBe(true);
    expect(parseDockerignore('deploy\n!deploy/public\n').excludes('deploy/public/ca.pem')).toBe(false);
  });
});
