import { TABLE_PHASES, TABLE_PHASE_TABLE, type FactCondition, type PhaseOutcome, type TableEvent, type TableFacts, type TablePhase } from '@svc/contracts';

/**
 * SQL of the table phase machine, generated from TABLE_PHASE_TABLE: an UPDATE of table_states sets
 * `phase = phaseAfter(event)` and adds `phaseAllows(event)` to its WHERE, so the row's phase is read and
 * written in one statement (atomic with the in-flight work id guard) and a refused event writes nothing.
 * `row` qualifies the columns (`t.` in an UPDATE … FROM).
 */
export function phaseAfter(event: TableEvent, row = ''): string {
  const cells = TABLE_PHASES.flatMap((phase) => {
    const outcome = TABLE_PHASE_TABLE[event][phase];
    return outcome.kind === 'refuse' || outcome.kind === 'keep' ? [] : [`WHEN ${literal(phase)} THEN ${outcomeSql(outcome, row)}`];
  });
  // Kept and refused phases stay as they are (a refused one is not updated at all, see phaseAllows).
  return cells.length === 0 ? `${row}phase` : `CASE ${row}phase ${cells.join(' ')} ELSE ${row}phase END`;
}

/** The phases in which `event` is not refused, as a WHERE condition (TRUE when it refuses none). */
export function phaseAllows(event: TableEvent, row = ''): string {
  const allowed = TABLE_PHASES.filter((phase) => TABLE_PHASE_TABLE[event][phase].kind !== 'refuse');
  if (allowed.length === TABLE_PHASES.length) return 'TRUE';
  if (allowed.length === 0) return 'FALSE';
  return `${row}phase IN (${allowed.map(literal).join(', ')})`;
}

/** The columns of table_states each fact of the machine is read from. */
const FACT_SQL: { [F in keyof TableFacts]: (row: string) => string } = {
  tracked: (row) => `${row}tracked`,
  hasWatermark: (row) => `${row}last_version IS NOT NULL`,
  seeded: (row) => `${row}last_seeded_at IS NOT NULL`,
};

function outcomeSql(outcome: Exclude<PhaseOutcome, { kind: 'refuse' } | { kind: 'keep' }>, row: string): string {
  if (outcome.kind === 'to') return literal(outcome.phase);
  const rules = outcome.rules.map((rule) => `WHEN ${conditionSql(rule.when, row)} THEN ${literal(rule.phase)}`);
  return `(CASE ${rules.join(' ')} ELSE ${literal(outcome.otherwise)} END)`;
}

function conditionSql(condition: FactCondition, row: string): string {
  const terms = (Object.keys(condition) as (keyof TableFacts)[]).map((fact) => (condition[fact] ? `(${FACT_SQL[fact](row)})` : `NOT (${FACT_SQL[fact](row)})`));
  return terms.length === 0 ? 'TRUE' : terms.join(' AND ');
}

/** Phases are fixed words of the contracts (letters only); quoted as SQL text. */
function literal(phase: TablePhase): string {
  if (!/^[A-Za-z]+$/.test(phase)) throw new Error(`phase ${phase} is not a plain word`);
  return `'${phase}'`;
}
