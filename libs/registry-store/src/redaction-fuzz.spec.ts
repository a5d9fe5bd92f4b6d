import { JsonLogger } from '@svc/logging';
import { maskConnectionString } from './connection-string-mask';
import { GRAMMARS, type Grammar } from './redaction-fuzz/grammars';
import { SeededRandom, hostilePassword } from './redaction-fuzz/seeded-random';

/**
 * Generated passwords over a hostile alphabet, written into connection strings of every grammar the engines
 * accept as a user would write them, must reach neither Describe (maskConnectionString) nor a log line
 * (the real JsonLogger). REDACTION_FUZZ_CASES raises the number of cases per grammar.
 */
const CASES = Number(process.env['REDACTION_FUZZ_CASES'] ?? 2000);
const SEED = 19_08;
/** Stands in for the password to show what the text holds besides it. */
const BENIGN = 'Zx7Zx7Zx7';
const MIN_LEAK = 4;

/** Every place Describe or the logs show a text: the masked form, then the logged lines' string values. */
const lines: string[] = [];
const logger = new JsonLogger('fuzz', 'debug', (line) => lines.push(line));

function shownForms(text: string): string[] {
  lines.length = 0;
  logger.error(`could not connect: ${text}`);
  logger.info('probe', { target: text, attempts: [text] });
  logger.warn('failed', { error: new Error(`login failed for ${text}`) });
  return [maskConnectionString(text), ...lines.map(loggedStrings)];
}

/** The string values of a log line (its time aside, which changes from one line to the next). */
function loggedStrings(line: string): string {
  const fields = JSON.parse(line) as Record<string, unknown>;
  delete fields['time'];
  const strings: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') strings.push(value);
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(walk);
  };
  walk(fields);
  return strings.join('\n');
}

/** A part of a secret (whole, or any 4 characters of it) that `shown` holds and the same text without the secret does not. */
function leakedPart(shown: string, without: string, secrets: readonly string[]): string | undefined {
  for (const secret of secrets) {
    const parts = [secret, ...Array.from({ length: Math.max(0, secret.length - MIN_LEAK + 1) }, (_, at) => secret.slice(at, at + MIN_LEAK))];
    const leaked = parts.find((part) => part.length >= MIN_LEAK && shown.includes(part) && !without.includes(part));
    if (leaked !== undefined) return leaked;
  }
  return undefined;
}

function failuresOf(grammar: Grammar, cases: number): string[] {
  const random = new SeededRandom(SEED + grammar.name.length);
  const failures: string[] = [];
  for (let index = 0; index < cases && failures.length < 5; index += 1) {
    const password = hostilePassword(random);
    const shapeSeed = random.below(2 ** 31);
    const built = grammar.build(password, new SeededRandom(shapeSeed));
    const benign = grammar.build(BENIGN, new SeededRandom(shapeSeed));
    const where = `case ${index} ${JSON.stringify(built.text)}`;
    const parsed = grammar.parsedPassword(built.text);
    if (parsed !== null && parsed !== password) failures.push(`${where}: the parser reads ${JSON.stringify(parsed)}, not the password`);
    const without = [benign.text, ...shownForms(benign.text)].join('\n');
    const shown = shownForms(built.text);
    shown.forEach((form) => {
      const leaked = leakedPart(form, without, [password, built.written]);
      if (leaked !== undefined) failures.push(`${where}: ${JSON.stringify(leaked)} shown in ${JSON.stringify(form)}`);
    });
    const hidden = grammar.visible.filter((part) => !(shown[0] ?? '').includes(part));
    if (hidden.length) failures.push(`${where}: Describe hides ${hidden.join(', ')}: ${JSON.stringify(shown[0])}`);
  }
  return failures;
}

describe('redaction of generated connection strings', () => {
  it.each(GRAMMARS.map((grammar) => [grammar.name, grammar] as const))('%s: the password reaches neither Describe nor the logs', (_name, grammar) => {
    expect(failuresOf(grammar, CASES)).toEqual([]);
  });

  it('finds a leak when there is one (the check itself can fail)', () => {
    expect(leakedPart('postgres://u:ab@cd@h', 'postgres://u:Zx7@h', ['ab@cd'])).toBe('ab@cd');
    expect(leakedPart('postgres://u:********@h/sales', 'postgres://u:********@h/sales', ['sales'])).toBeUndefined();
  });
});
