import { ENGINE_PAIRS, TRIGGER_PAIR_PREFIX, describeEachPair, leftOut, selectedPairs } from './engine-pairs';
import { pipelineSuite } from './pipeline-suite';

/**
 * The generic pipeline suite (pipeline-suite.ts) for every pair with a PostgreSQL source: changes read from the log,
 * into each warehouse, and the trigger fallback into PostgreSQL (its capture does not depend on the warehouse).
 */
describeEachPair(
  'pipeline',
  pipelineSuite,
  selectedPairs(ENGINE_PAIRS)
    .filter((pair) => pair.name.startsWith('PostgreSQL '))
    .map((pair) => (pair.name.startsWith(TRIGGER_PAIR_PREFIX) && pair.name !== `${TRIGGER_PAIR_PREFIX} → PostgreSQL` ? leftOut(pair, 'the trigger fallback runs into PostgreSQL only') : pair)),
);
