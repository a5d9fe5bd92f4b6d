import { DEFAULT_DATABASE_URL, DEVELOPMENT_FLAG, DEVELOPMENT_MASTER_KEY, EnvReader } from '@svc/config';
import { MasterKeyError, parseMasterKey } from '@svc/crypto';

export interface MasterKeys {
  /** Seals every value written (SVC_MASTER_KEY). */
  current: Buffer;
  /** Still open values sealed before a rotation (SVC_MASTER_KEY_PREVIOUS, comma-separated). */
  previous: Buffer[];
}

/** DEVELOPMENT_FLAG: true only under `npm start`; it allows the public development defaults. */
export function readDevelopmentFlag(env: EnvReader): boolean {
  return env.bool(DEVELOPMENT_FLAG, false);
}

/**
 * Reads the master keys, adding a problem (never a key) for each bad one. The public development key is
 * refused as the current key outside development; as a previous key it is accepted, so that data sealed
 * under it can be rotated onto a real key.
 */
export function readMasterKeys(env: EnvReader, development: boolean, problems: string[]): MasterKeys {
  const currentText = env.string('SVC_MASTER_KEY');
  const previousTexts = (env.optionalString('SVC_MASTER_KEY_PREVIOUS') ?? '')
    .split(',')
    .map((text) => text.trim())
    .filter((text) => text !== '');

  let current: Buffer = Buffer.alloc(0);
  if (currentText !== '') {
    try {
      current = parseMasterKey(currentText);
    } catch (error) {
      if (!(error instanceof MasterKeyError)) throw error;
      problems.push(`SVC_MASTER_KEY: ${error.message}`);
    }
  }
  if (!development && current.length > 0 && current.equals(parseMasterKey(DEVELOPMENT_MASTER_KEY))) {
    problems.push(
      `SVC_MASTER_KEY: is the public development key of \`npm start\`; give a key of your own (for example \`openssl rand -hex 32\`), and to keep what it sealed, move it to SVC_MASTER_KEY_PREVIOUS`,
    );
  }

  const previous: Buffer[] = [];
  previousTexts.forEach((text, index) => {
    const which = previousTexts.length > 1 ? ` (entry ${index + 1})` : '';
    try {
      previous.push(parseMasterKey(text));
    } catch (error) {
      if (!(error instanceof MasterKeyError)) throw error;
      problems.push(`SVC_MASTER_KEY_PREVIOUS${which}: ${error.message}`);
    }
  });
  return { current, previous };
}

/** What `npm run rotate-master-key` reads: the control database and the keys, validated as the registry does. */
export interface KeyRotationConfig {
  databaseUrl: string;
  masterKeys: MasterKeys;
}

export function readKeyRotationConfig(environment: Record<string, string | undefined>): KeyRotationConfig {
  const env = new EnvReader(environment);
  const problems: string[] = [];
  const databaseUrl = env.url('DATABASE_URL', DEFAULT_DATABASE_URL, ['postgres', 'postgresql']);
  const masterKeys = readMasterKeys(env, readDevelopmentFlag(env), problems);
  for (const problem of problems) env.problem(problem);
  env.done();
  return { databaseUrl, masterKeys };
}
