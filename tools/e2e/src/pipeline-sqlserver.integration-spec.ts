import { ENGINE_PAIRS, describeEachPair, selectedPairs } from './engine-pairs';
import { pipelineSuite } from './pipeline-suite';

/** The generic pipeline suite (pipeline-suite.ts) for every pair with a SQL Server source, the model of it on PostgreSQL among them. */
describeEachPair(
  'pipeline',
  pipelineSuite,
  selectedPairs(ENGINE_PAIRS).filter((pair) => pair.name.startsWith('SQL Server ')),
);
