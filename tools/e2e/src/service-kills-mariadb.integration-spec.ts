import { enginePairNamed } from './engine-pairs';
import { serviceKillsSuite } from './service-kills-suite';

/** The kill test (service-kills-suite.ts) with a MariaDB source read by its binary log. */
serviceKillsSuite(() => enginePairNamed('MariaDB → PostgreSQL'));
