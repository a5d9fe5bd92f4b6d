import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

/**
 * ServiceProcess (libs/system-testing) looks for the services in `<its folder>/../../../dist/apps`: right when
 * it runs from source under jest, but `dist/dist/apps` when it runs from a build, as this tool does. Until
 * it resolves that itself, a link `dist/dist/apps → dist/apps` makes both layouts work. `buildRoot` is the
 * build's root (the folder holding apps/, libs/, tools/).
 */
export function linkServiceEntries(buildRoot: string): void {
  const apps = join(buildRoot, 'apps');
  const expected = join(buildRoot, 'dist', 'apps');
  if (!existsSync(apps) || existsSync(expected)) return;
  mkdirSync(join(buildRoot, 'dist'), { recursive: true });
  symlinkSync(join('..', 'apps'), expected, 'dir');
}
