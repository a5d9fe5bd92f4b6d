import { ENGINE_PAIRS, describeEachPair, leftOut, selectedPairs } from './engine-pairs';
import { pipelineSuite } from './pipeline-suite';

/** The generic pipeline suite (pipeline-suite.ts) for every pair with a SQL Server source, the model of it on PostgreSQL among them. */
describeEachPair(
  'pipeline',
  pipelineSuite,
  selectedPairs(ENGINE_PAIRS)
    .filter((pair) => pair.name.startsWith('SQL Server '))
    // The specification's pair (→ Redshift) carries the model here; → PostgreSQL runs the wide suite, within npm test's time.
    .map((pair) => (pair.name === 'SQL Server modelled on PostgreSQL (not a real SQL Server) → PostgreSQL' ? leftOut(pair, 'the model runs the pipeline suite into the Redshift dialect') : pair)),
);
