import { PipelineConsumers, PipelineSubjects, ReplayRecords, Subjects } from '@svc/contracts';
import { BusNames } from './bus-names';
import { BUS_ROLES, busPermissionsOf, inboxPrefixOf, type BusRole } from './bus-roles';
import { generateBusCredentials, natsServerConfig } from './bus-server-config';

/** NATS subject matching: `*` one token, `>` the rest. */
function matches(pattern: string, subject: string): boolean {
  const wanted = pattern.split('.');
  const tokens = subject.split('.');
  for (let index = 0; index < wanted.length; index += 1) {
    if (wanted[index] === '>') return tokens.length > index;
    if (wanted[index] !== '*' && wanted[index] !== tokens[index]) return false;
  }
  return wanted.length === tokens.length;
}

const mayPublish = (role: BusRole, subject: string) => busPermissionsOf(role).publish.some((pattern) => matches(pattern, subject));
const maySubscribe = (role: BusRole, subject: string) => busPermissionsOf(role).subscribe.some((pattern) => matches(pattern, subject));
const rolesThatPublish = (subject: string) => BUS_ROLES.filter((role) => mayPublish(role, subject));

describe('the bus permission model', () => {
  it('lets only the api-gateway run operations and have signatures checked, and only an operator create access keys', () => {
    expect(rolesThatPublish(Subjects.registryOperation)).toEqual(['api-gateway']);
    expect(rolesThatPublish(Subjects.registryCheckSignature)).toEqual(['api-gateway']);
    expect(rolesThatPublish(Subjects.registryCreateAccessKey)).toEqual(['operator']);
    expect(rolesThatPublish(Subjects.registryManageAccessKeys)).toEqual(['operator']);
  });

  it('lets only the registry make the gateways\' shared replay records, and only gateways write an entry, which nobody reads, lists or deletes', () => {
    for (const verb of ['CREATE', 'UPDATE', 'INFO']) expect(rolesThatPublish(`$JS.API.STREAM.${verb}.${ReplayRecords.stream}`)).toEqual(['job-registry']);
    for (const verb of ['DELETE', 'PURGE', 'MSG.GET', 'MSG.DELETE']) expect(rolesThatPublish(`$JS.API.STREAM.${verb}.${ReplayRecords.stream}`)).toEqual([]);
    expect(rolesThatPublish(`$JS.API.DIRECT.GET.${ReplayRecords.stream}`)).toEqual([]);
    expect(rolesThatPublish(`${ReplayRecords.subjectPrefix}.0123abcd`)).toEqual(['api-gateway']);
    expect(BUS_ROLES.filter((role) => maySubscribe(role, `${ReplayRecords.subjectPrefix}.0123abcd`))).toEqual([]);
  });

  it('lets only pipeline workers ask for runtime configuration (with its secrets)', () => {
    expect(rolesThatPublish(Subjects.registryRuntimeConfig)).toEqual(['extractor', 'stager', 'loader']);
  });

  it('lets only the registry publish work requests, cancellations and alerts, and manage the streams', () => {
    expect(rolesThatPublish(PipelineSubjects.extractRequested)).toEqual(['job-registry']);
    expect(rolesThatPublish(Subjects.workCancelled)).toEqual(['job-registry']);
    expect(rolesThatPublish(Subjects.alertRaised)).toEqual(['job-registry']);
    for (const verb of ['CREATE', 'UPDATE', 'DELETE']) {
      expect(rolesThatPublish(`$JS.API.STREAM.${verb}.SVC_PIPELINE_V1`)).toEqual(['job-registry']);
      expect(rolesThatPublish(`$JS.API.STREAM.${verb}.SVC_ROWS_V1`)).toEqual(['job-registry']);
    }
    expect(rolesThatPublish('$JS.API.STREAM.PURGE.SVC_PIPELINE_V1')).toEqual(['job-registry']);
  });

  it('lets only the registry ask the extractors to discover, release or probe tables, and only extractors answer', () => {
    for (const subject of [Subjects.extractorDiscoverTables, Subjects.extractorReleaseTables, Subjects.extractorChangedTables]) {
      expect(rolesThatPublish(subject)).toEqual(['job-registry']);
      expect(BUS_ROLES.filter((role) => maySubscribe(role, subject))).toEqual(['extractor']);
    }
  });

  it('lets only the registry queue table validations, only extractors report on them, and only the registry hear the reports', () => {
    expect(rolesThatPublish(PipelineSubjects.validateRequested)).toEqual(['job-registry']);
    expect(rolesThatPublish(Subjects.registryValidationReport)).toEqual(['extractor']);
    expect(rolesThatPublish(Subjects.registryWorkAttempt)).toEqual(['extractor']);
    expect(BUS_ROLES.filter((role) => maySubscribe(role, Subjects.registryWorkAttempt))).toEqual(['job-registry']);
    expect(BUS_ROLES.filter((role) => maySubscribe(role, Subjects.registryValidationReport))).toEqual(['job-registry']);
  });

  it('lets only extractors ask for (or offer) a chunked seed\'s plan, and only the registry answer', () => {
    expect(rolesThatPublish(Subjects.registrySeedPlan)).toEqual(['extractor']);
    expect(BUS_ROLES.filter((role) => maySubscribe(role, Subjects.registrySeedPlan))).toEqual(['job-registry']);
  });

  it('lets each worker publish only its own stage’s results', () => {
    expect(rolesThatPublish(PipelineSubjects.batchExtracted)).toEqual(['extractor']);
    expect(rolesThatPublish(PipelineSubjects.batchStaged)).toEqual(['stager']);
    // The extractor reports a change cycle that found nothing as loaded at once.
    expect(rolesThatPublish(PipelineSubjects.batchLoaded)).toEqual(['extractor', 'loader']);
    // Staging's commit of a batch the loaders took before it.
    expect(rolesThatPublish(PipelineSubjects.batchStagingApplied)).toEqual(['stager']);
    expect(rolesThatPublish(PipelineSubjects.workFailed)).toEqual(['extractor', 'stager', 'loader']);
    expect(rolesThatPublish(`${PipelineSubjects.rowsPrefix}.abc`)).toEqual(['extractor']);
  });

  it('lets a role create and pull only its own durable consumer, with its own filter', () => {
    for (const [owner, consumer] of [
      ['extractor', PipelineConsumers.extractor],
      ['extractor', PipelineConsumers.validator],
      ['stager', PipelineConsumers.stager],
      ['loader', PipelineConsumers.loader],
      ['job-registry', PipelineConsumers.registryLoaded],
      ['job-registry', PipelineConsumers.registryStagingApplied],
    ] as const) {
      expect(rolesThatPublish(`$JS.API.CONSUMER.CREATE.SVC_PIPELINE_V1.${consumer.durableName}.${consumer.subject}`)).toEqual([owner]);
      expect(rolesThatPublish(`$JS.API.CONSUMER.MSG.NEXT.SVC_PIPELINE_V1.${consumer.durableName}`)).toEqual([owner]);
    }
    // Nobody may create a consumer with a filter of its choosing on the work queue (it would take others' work).
    expect(rolesThatPublish('$JS.API.CONSUMER.CREATE.SVC_PIPELINE_V1.thief.svc.pipeline.v1.batch.staged')).toEqual([]);
    expect(rolesThatPublish('$JS.API.CONSUMER.DURABLE.CREATE.SVC_PIPELINE_V1.loader')).toEqual([]);
  });

  it('lets the registry answer every other role, and the extractor the registry, after a move to another NATS node (nothing else writes to inboxes)', () => {
    // allow_responses covers only a request delivered through the node the responder is on now (nats-cluster test).
    for (const requester of ['extractor', 'stager', 'loader', 'api-gateway', 'operator'] as const) {
      expect(rolesThatPublish(`${inboxPrefixOf(requester)}.abc.1`)).toEqual(['job-registry']);
    }
    expect(rolesThatPublish(`${inboxPrefixOf('job-registry')}.abc.1`)).toEqual(['extractor']);
  });

  it('gives every role inboxes of its own, which no other role may read', () => {
    for (const role of BUS_ROLES) {
      const reply = `${inboxPrefixOf(role)}.abc.1`;
      expect(BUS_ROLES.filter((other) => maySubscribe(other, reply))).toEqual([role]);
      expect(maySubscribe(role, '_INBOX.>')).toBe(false);
    }
  });
});

/** Whether some subject matches both patterns (`*` one token, `>` one or more). */
function overlap(first: string, second: string): boolean {
  const a = first.split('.');
  const b = second.split('.');
  for (let index = 0; index < Math.max(a.length, b.length); index += 1) {
    const [x, y] = [a[index], b[index]];
    if (x === undefined || y === undefined) return false;
    if (x === '>' || y === '>') return true;
    if (x !== '*' && y !== '*' && x !== y) return false;
  }
  return true;
}

describe('installations on one NATS (SVC_INSTALLATION)', () => {
  const installations = [new BusNames(''), new BusNames('blue'), new BusNames('green')];
  /** The account's JetStream usage (limits, counts): the same account whatever the installation, and nothing of its data. */
  const ACCOUNT_INFO = '$JS.API.INFO';
  const everything = (names: BusNames) =>
    BUS_ROLES.flatMap((role) => [...busPermissionsOf(role, names).publish, ...busPermissionsOf(role, names).subscribe]).filter((entry) => entry !== ACCOUNT_INFO);

  it('lets no role of one installation publish or subscribe to anything another installation uses, whatever the two are called', () => {
    for (const mine of installations) {
      for (const theirs of installations.filter((other) => other !== mine)) {
        const crossing = BUS_ROLES.flatMap((role) => {
          const own = busPermissionsOf(role, mine);
          return [...own.publish, ...own.subscribe].filter((entry) => entry !== ACCOUNT_INFO).flatMap((pattern) => everything(theirs).filter((other) => overlap(pattern, other)).map((other) => `${role}: ${pattern} ~ ${other}`));
        });
        expect({ mine: mine.installation, theirs: theirs.installation, crossing }).toEqual({ mine: mine.installation, theirs: theirs.installation, crossing: [] });
      }
    }
  });

  it('keeps the default installation\'s names as they always were, and names another\'s apart', () => {
    const blue = new BusNames('blue');
    expect(new BusNames('').subject(PipelineSubjects.batchStaged)).toBe('svc.pipeline.v1.batch.staged');
    expect(blue.subject(PipelineSubjects.batchStaged)).toBe('svc-blue.pipeline.v1.batch.staged');
    expect(blue.subject('svc.registry.v1.>')).toBe('svc-blue.registry.v1.>');
    expect([blue.workStream, blue.rowsStream, blue.replayBucket, blue.replayStream, blue.replaySubjectPrefix]).toEqual([
      'SVC_BLUE_PIPELINE_V1',
      'SVC_BLUE_ROWS_V1',
      'SVC_BLUE_REPLAY_V1',
      'KV_SVC_BLUE_REPLAY_V1',
      '$KV.SVC_BLUE_REPLAY_V1',
    ]);
    expect(inboxPrefixOf('stager', blue)).toBe('_INBOX.svc-blue-stager');
    expect(busPermissionsOf('stager', blue).publish).toContain(`$JS.API.CONSUMER.CREATE.SVC_BLUE_PIPELINE_V1.stager.svc-blue.pipeline.v1.batch.extracted`);
  });

  it('refuses a name that is not 1-16 lowercase letters and digits, naming the setting', () => {
    for (const bad of ['Blue', 'blue.green', 'blue-green', '1blue', 'a'.repeat(17), 'blue>', ' ']) {
      expect(() => new BusNames(bad)).toThrow(/^SVC_INSTALLATION: must be empty/);
    }
  });
});

describe('natsServerConfig', () => {
  it('has one nkey user per role with its permissions and no anonymous access, and TLS on clients and routes', () => {
    const credentials = generateBusCredentials();
    const config = JSON.parse(
      natsServerConfig({
        serverName: 'nats-1',
        port: 4222,
        storeDir: '/data',
        identities: credentials,
        tls: { certFile: '/certs/nats.pem', keyFile: '/certs/nats-key.pem', caFile: '/certs/ca.pem' },
        cluster: { name: 'svc', port: 6222, routes: ['nats://nats-2:6222'] },
      }),
    ) as { authorization: { users: { nkey: string; permissions: { publish: { allow: string[] }; allow_responses: boolean } }[] }; tls: object; cluster: { tls: { verify: boolean } }; no_auth_user?: string };
    expect(config.authorization.users.map((user) => user.nkey)).toEqual(credentials.map((credential) => credential.publicKey));
    expect(config.authorization.users.every((user) => user.permissions.allow_responses)).toBe(true);
    expect(config.no_auth_user).toBeUndefined();
    expect(config.tls).toMatchObject({ cert_file: '/certs/nats.pem', ca_file: '/certs/ca.pem' });
    expect(config.cluster.tls.verify).toBe(true);
    // Seeds are secrets of the services: never in the server's file.
    const text = JSON.stringify(config);
    for (const credential of credentials) expect(text).not.toContain(credential.seed);
  });
});
