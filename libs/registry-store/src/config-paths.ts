import type { ReplicationConfig } from '@svc/contracts';

/**
 * Dotted paths of a configuration's leaves (`warehouse.bucketName`); arrays are leaves. Used to name
 * what an Alter changed, in history rows and for the reachability re-check.
 */
export function configLeaves(config: ReplicationConfig): Map<string, unknown> {
  const leaves = new Map<string, unknown>();
  collect(config, '', leaves);
  return leaves;
}

function collect(value: unknown, prefix: string, into: Map<string, unknown>): void {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined) collect(item, prefix ? `${prefix}.${key}` : key, into);
    }
    return;
  }
  into.set(prefix, value);
}

/** Paths whose value differs between two configurations, including ones present on one side only; sorted. */
export function changedConfigPaths(before: ReplicationConfig, after: ReplicationConfig): string[] {
  const old = configLeaves(before);
  const next = configLeaves(after);
  const paths = new Set([...old.keys(), ...next.keys()]);
  return [...paths].filter((path) => JSON.stringify(old.get(path)) !== JSON.stringify(next.get(path))).sort();
}
