/** The setting that names an installation: stacks on one NATS with different names never see each other's messages. */
export const INSTALLATION_SETTING = 'SVC_INSTALLATION';
const INSTALLATION_NAME = /^[a-z][a-z0-9]{0,15}$/;

/** Why `value` cannot name an installation, or null: empty (the default installation), or 1–16 lowercase letters and digits. */
export function installationProblem(value: string): string | null {
  if (value === '' || INSTALLATION_NAME.test(value)) return null;
  return `${INSTALLATION_SETTING}: must be empty (the default installation) or 1 to 16 lowercase letters and digits starting with a letter, got '${value}'`;
}

/**
 * A rows subject of any installation (`svc.pipeline.v1.rows.<token>` or `svc-<name>.pipeline.v1.rows.<token>`): messages
 * carry the subject as their installation names it, and each worker checks it is its own before reading.
 */
export const ANY_INSTALLATION_ROWS_SUBJECT = /^svc(-[a-z][a-z0-9]{0,15})?\.pipeline\.v1\.rows\.[^.*>\s]+$/;
