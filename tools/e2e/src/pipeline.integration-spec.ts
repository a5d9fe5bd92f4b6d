import { ENGINE_PAIRS, describeEachPair, selectedPairs } from './engine-pairs';
import { pipelineSuite } from './pipeline-suite';

/** The generic pipeline suite (pipeline-suite.ts) for every pair with a PostgreSQL source. */
describeEachPair(
  'pipeline',
  pipelineSuite,
  selectedPairs(ENGINE_PAIRS).filter((pair) => pair.name.startsWith('PostgreSQL ')),
);
