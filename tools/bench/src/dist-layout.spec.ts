import { existsSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { linkServiceEntries } from './dist-layout';

describe('linkServiceEntries', () => {
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'bench-dist-'));
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('links dist/apps under dist/dist so both path resolutions reach the services', () => {
    mkdirSync(join(root, 'apps', 'loader', 'src'), { recursive: true });
    writeFileSync(join(root, 'apps', 'loader', 'src', 'main.js'), '');
    linkServiceEntries(root);
    expect(readlinkSync(join(root, 'dist', 'apps'))).toBe(join('..', 'apps'));
    expect(existsSync(join(root, 'dist', 'apps', 'loader', 'src', 'main.js'))).toBe(true);
    // A second run leaves the link alone.
    expect(() => linkServiceEntries(root)).not.toThrow();
  });

  it('does nothing outside a build', () => {
    linkServiceEntries(root);
    expect(existsSync(join(root, 'dist'))).toBe(false);
  });
});
