import { POSTGRES_TO_POSTGRES } from './engine-pairs';
import { serviceKillsSuite } from './service-kills-suite';

/** The kill test (service-kills-suite.ts) with PostgreSQL's log capture as the source. */
serviceKillsSuite(() => POSTGRES_TO_POSTGRES);
