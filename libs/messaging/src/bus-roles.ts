import { PipelineConsumers, PipelineStreams, PipelineSubjects, ReplayRecords, Subjects, healthSubject } from '@svc/contracts';
import { busNames, type BusNames } from './bus-names';

/** Who may be on the bus: the five services, and operators (the CLI's key creation, health checks). */
export const BUS_ROLES = ['job-registry', 'api-gateway', 'extractor', 'stager', 'loader', 'operator'] as const;
export type BusRole = (typeof BUS_ROLES)[number];

/** What one role may publish (requests and events included) and subscribe to; replies to its requesters are allowed on top. */
export interface BusPermissions {
  publish: string[];
  subscribe: string[];
}

const WORK = PipelineStreams.work.name;
const ROWS = PipelineStreams.rows.name;
const JS_API = '$JS.API';

/**
 * Replies come to inboxes under the role's own prefix, and a role may only read its own: another role cannot
 * subscribe to `_INBOX.>` and read the runtime configurations or signing keys meant for someone else.
 */
export function inboxPrefixOf(role: BusRole, names: BusNames = busNames()): string {
  return names.inboxPrefix(role);
}

/**
 * Replies a responder may send to its requesters' inboxes whatever NATS node the request came through. `allow_responses`
 * alone lets a client answer only a request delivered to it by the node it is connected to now: a responder that moved
 * to another node (its node lost, a cluster rolling) between request and reply was refused (Publish Violation, nats-cluster
 * test) and the requester waited out its timeout. Only the registry (answering every other role) and the extractor
 * (answering the registry) get this; health answers keep to allow_responses, where a lost one costs nothing.
 */
function repliesTo(...requesters: BusRole[]): string[] {
  return requesters.map((requester) => `${logicalInbox(requester)}.>`);
}

/** Create (the filter is part of the subject, so no other filter can be chosen), look up, pull from and acknowledge one durable consumer. */
function ownDurableConsumer(consumer: { durableName: string; subject: string }): string[] {
  return [
    `${JS_API}.CONSUMER.CREATE.${WORK}.${consumer.durableName}.${consumer.subject}`,
    `${JS_API}.CONSUMER.INFO.${WORK}.${consumer.durableName}`,
    `${JS_API}.CONSUMER.MSG.NEXT.${WORK}.${consumer.durableName}`,
    `$JS.ACK.${WORK}.${consumer.durableName}.>`,
  ];
}

/** Every pipeline worker: its own health, its configuration from the registry, heartbeats, failure reports, cancellations. */
function pipelineWorker(role: 'extractor' | 'stager' | 'loader'): BusPermissions {
  return {
    publish: [
      Subjects.registryRuntimeConfig,
      Subjects.workProgress,
      PipelineSubjects.workFailed,
      `${JS_API}.INFO`,
      `${JS_API}.STREAM.INFO.${WORK}`,
      `${JS_API}.STREAM.INFO.${ROWS}`,
      ...ownDurableConsumer(PipelineConsumers[role]),
    ],
    subscribe: [healthSubject(role), Subjects.workCancelled, `${logicalInbox(role)}.>`],
  };
}

function joined(...parts: BusPermissions[]): BusPermissions {
  return { publish: parts.flatMap((part) => part.publish), subscribe: parts.flatMap((part) => part.subscribe) };
}

/** A role's inbox in the logical names the permissions are written in (BusNames.permission makes it the installation's). */
function logicalInbox(role: BusRole): string {
  return `_INBOX.${role}`;
}

/**
 * The permission model of the bus, for this process's installation (SVC_INSTALLATION; `npm run secrets` writes the NATS
 * configuration of the installation it runs for): written in the contracts' logical names, then named as the
 * installation names them, so one installation's roles reach nothing of another's on the same NATS.
 */
export function busPermissionsOf(role: BusRole, names: BusNames = busNames()): BusPermissions {
  const logical = logicalPermissionsOf(role);
  return { publish: logical.publish.map((entry) => names.permission(entry)), subscribe: logical.subscribe.map((entry) => names.permission(entry)) };
}

/**
 * The permission model of the bus: exactly what each role does, nothing more. Only the gateway asks the registry
 * to check signatures and run operations (each proved by its caller's signature, not by the gateway's word); only
 * pipeline workers ask for runtime configurations; only the registry publishes work requests, cancellations and
 * alerts, and manages the streams; each worker publishes only its own stage's results, reads only its own consumer,
 * and touches the rows stream only as its stage needs.
 */
function logicalPermissionsOf(role: BusRole): BusPermissions {
  switch (role) {
    case 'job-registry':
      return {
        publish: [
          Subjects.extractorDiscoverTables,
          Subjects.extractorReleaseTables,
          Subjects.extractorChangedTables,
          Subjects.workCancelled,
          Subjects.alertRaised,
          PipelineSubjects.extractRequested,
          PipelineSubjects.validateRequested,
          `${JS_API}.INFO`,
          `${JS_API}.STREAM.*.${WORK}`,
          `${JS_API}.STREAM.*.${ROWS}`,
          // The gateways' shared replay records: made (and kept as configured) by the registry alone.
          `${JS_API}.STREAM.CREATE.${ReplayRecords.stream}`,
          `${JS_API}.STREAM.INFO.${ReplayRecords.stream}`,
          `${JS_API}.STREAM.UPDATE.${ReplayRecords.stream}`,
          ...ownDurableConsumer(PipelineConsumers.registryLoaded),
          ...ownDurableConsumer(PipelineConsumers.registryStagingApplied),
          ...ownDurableConsumer(PipelineConsumers.registryFailed),
          ...repliesTo('extractor', 'stager', 'loader', 'api-gateway', 'operator'),
        ],
        subscribe: ['svc.registry.v1.>', Subjects.registryOperation, healthSubject('job-registry'), Subjects.workProgress, `${logicalInbox(role)}.>`],
      };
    case 'api-gateway':
      return {
        publish: [
          Subjects.registryOperation,
          Subjects.registryCheckSignature,
          Subjects.registryMetrics,
          healthSubject('job-registry'),
          // The shared replay records: a new entry (one key token) written with "no earlier revision"; never read, listed or deleted.
          `${JS_API}.INFO`,
          `${ReplayRecords.subjectPrefix}.*`,
        ],
        subscribe: [healthSubject('api-gateway'), `${logicalInbox(role)}.>`],
      };
    case 'extractor':
      return joined(pipelineWorker('extractor'), {
        publish: [
          PipelineSubjects.batchExtracted,
          // A change cycle that found nothing is done at once: the extractor reports it loaded.
          PipelineSubjects.batchLoaded,
          `${PipelineSubjects.rowsPrefix}.*`,
          `${JS_API}.STREAM.PURGE.${ROWS}`,
          // A work delivered again starts a new attempt, with its own epoch (WorkAttemptRequest).
          Subjects.registryWorkAttempt,
          // A chunked seed's plan, asked for or offered: the registry publishes its chunks (SeedPlanRequest).
          Subjects.registrySeedPlan,
          // Validation: a table's comparison, and its progress and result told to the registry.
          ...ownDurableConsumer(PipelineConsumers.validator),
          Subjects.registryValidationReport,
          ...repliesTo('job-registry'),
        ],
        subscribe: [Subjects.extractorDiscoverTables, Subjects.extractorReleaseTables, Subjects.extractorChangedTables],
      });
    case 'stager':
      return joined(pipelineWorker('stager'), {
        publish: [
          PipelineSubjects.batchStaged,
          // Staging's commit of a batch the loaders took before it (staging and warehouse apply at once).
          PipelineSubjects.batchStagingApplied,
          // Reading a batch's rows: a consumer of its own on the rows stream, or single reads from the stream leader.
          `${JS_API}.CONSUMER.CREATE.${ROWS}`,
          `${JS_API}.CONSUMER.CREATE.${ROWS}.>`,
          `${JS_API}.CONSUMER.INFO.${ROWS}.*`,
          `${JS_API}.CONSUMER.DELETE.${ROWS}.*`,
          `${JS_API}.CONSUMER.MSG.NEXT.${ROWS}.*`,
          `${JS_API}.STREAM.MSG.GET.${ROWS}`,
          `${JS_API}.STREAM.PURGE.${ROWS}`,
        ],
        subscribe: [],
      });
    case 'loader':
      return joined(pipelineWorker('loader'), { publish: [PipelineSubjects.batchLoaded], subscribe: [] });
    case 'operator':
      return {
        publish: [Subjects.registryCreateAccessKey, Subjects.registryManageAccessKeys, Subjects.registryMetrics, 'svc.*.v1.health'],
        subscribe: [`${logicalInbox(role)}.>`],
      };
  }
}
