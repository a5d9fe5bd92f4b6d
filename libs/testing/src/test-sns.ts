import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { RestartablePort } from './restartable-server';

/**
 * A local double of Amazon SNS for Publish, speaking the Query protocol that @aws-sdk/client-sns uses (its
 * dist-cjs/index.js: AwsQueryProtocol, version 2010-03-31): a form-encoded POST (`Action=Publish&Version=2010-03-31
 * &TopicArn=…&Message=…&Subject=…&MessageAttributes.entry.N.Name=…&MessageAttributes.entry.N.Value.DataType=…
 * &MessageAttributes.entry.N.Value.StringValue=…&MessageGroupId=…&MessageDeduplicationId=…`) answered with
 * PublishResponse XML or an ErrorResponse.
 *
 * - Publish: https://docs.aws.amazon.com/sns/latest/api/API_Publish.html — a topic that does not exist is 404 NotFound;
 *   Message is required and at most 256 KiB (262,144 bytes) with its attributes counted in
 *   (https://docs.aws.amazon.com/sns/latest/dg/sns-message-attributes.html, also at most 10 attributes there); Subject is
 *   "less than 100 characters long" with no line breaks or control characters; a bad parameter is 400 InvalidParameter.
 * - FIFO topics (https://docs.aws.amazon.com/sns/latest/dg/fifo-message-dedup.html and the Publish page):
 *   MessageGroupId is required; MessageDeduplicationId is required unless the topic has ContentBasedDeduplication
 *   (then the SHA-256 of the message body); both are up to 128 of a-z A-Z 0-9 and punctuation; a message with the
 *   deduplication id of one published within the last 5 minutes is accepted but not delivered again (recorded once, the
 *   first MessageId answered). The answer has a SequenceNumber. MessageDeduplicationId on a standard topic is refused.
 * - Errors: https://docs.aws.amazon.com/sns/latest/api/CommonErrors.html (ErrorResponse/Error/Code): a request without
 *   a SigV4 Authorization header is 403 MissingAuthenticationToken; an unknown action or version is 400 InvalidAction.
 *   Signatures themselves are not checked; the caller is told apart by the access key id of `Credential=<id>/…`.
 */
export interface TestSns {
  /** http://127.0.0.1:<port>: the SNS endpoint (AlertSenderSettings.snsEndpoint) of a sender under test. */
  endpoint: string;
  /** Creates a topic (a name ending in .fifo for a FIFO topic, as SNS requires) and returns its ARN. */
  createTopic(name: string, options?: { fifo?: boolean; contentBasedDeduplication?: boolean }): string;
  /** Messages accepted for delivery, in order; a FIFO duplicate is not recorded again. */
  published: PublishedSnsMessage[];
  /** Every call, as received. */
  calls: SnsCall[];
  /** Answers the next `count` Publish calls with this error instead (a throttled or failing SNS). */
  failNextPublishes(count: number, error: { status: number; code: string; message?: string }): void;
  stop(): Promise<void>;
  /** Listens again on the same port; topics and messages are kept. */
  restart(): Promise<void>;
}

export interface PublishedSnsMessage {
  topicArn: string;
  messageId: string;
  message: string;
  subject?: string;
  attributes: Record<string, { dataType: string; value: string }>;
  messageGroupId?: string;
  messageDeduplicationId?: string;
  sequenceNumber?: string;
  callerAccessKeyId: string | null;
}

export interface SnsCall {
  action: string;
  topicArn?: string;
  callerAccessKeyId: string | null;
  status: number;
  code?: string;
}

interface Topic {
  fifo: boolean;
  contentBasedDeduplication: boolean;
  /** Deduplication id → when it was first published and the answer it got. */
  recentDeduplicationIds: Map<string, { at: number; messageId: string; sequenceNumber: string }>;
}

type Answer = { status: number; xml: string; code?: string };

export const TEST_SNS_ACCOUNT = '123456789012';
const TEST_SNS_REGION = 'us-east-1';
const XMLNS = 'http://sns.amazonaws.com/doc/2010-03-31/';
const MAX_MESSAGE_BYTES = 262_144;
const MAX_ATTRIBUTES = 10;
const DEDUPLICATION_INTERVAL_MS = 5 * 60 * 1000;
const FIFO_TOKEN = /^[A-Za-z0-9!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]{1,128}$/;
const TOPIC_NAME = /^[A-Za-z0-9_-]{1,256}$/;
const ATTRIBUTE_TYPE = /^(String|Number|Binary)(\..+)?$/;

export async function startTestSns(): Promise<TestSns> {
  const topics = new Map<string, Topic>();
  const published: PublishedSnsMessage[] = [];
  const calls: SnsCall[] = [];
  const injectedFailures: { status: number; code: string; message?: string }[] = [];
  let sequence = 10_000_000_000_000_000_000n;

  const server = createServer((request, response) => {
    void readBody(request).then((body) => {
      const form = new URLSearchParams(body);
      const call: SnsCall = { action: form.get('Action') ?? '', callerAccessKeyId: callerOf(request), status: 200, ...(form.has('TopicArn') && { topicArn: form.get('TopicArn') ?? '' }) };
      const answer = answerFor(request, call, form);
      call.status = answer.status;
      if (answer.code !== undefined) call.code = answer.code;
      calls.push(call);
      send(response, answer.status, answer.xml);
    });
  });

  function answerFor(request: IncomingMessage, call: SnsCall, form: URLSearchParams): Answer {
    if (!/^AWS4-HMAC-SHA256 Credential=/.test(request.headers.authorization ?? '')) return error(403, 'MissingAuthenticationToken', 'Request is missing Authentication Token');
    if (form.get('Version') !== '2010-03-31' || call.action !== 'Publish') return error(400, 'InvalidAction', `Could not find operation ${call.action} for version ${form.get('Version') ?? ''}`);
    const injected = injectedFailures.shift();
    if (injected !== undefined) return error(injected.status, injected.code, injected.message ?? injected.code);
    return publish(call, form);
  }

  function publish(call: SnsCall, form: URLSearchParams): Answer {
    const topicArn = form.get('TopicArn') ?? '';
    const topic = topics.get(topicArn);
    if (topic === undefined) return error(404, 'NotFound', 'Topic does not exist');
    const message = form.get('Message');
    if (message === null || message === '') return error(400, 'InvalidParameter', 'Invalid parameter: Empty message');
    const subject = form.get('Subject') ?? undefined;
    if (subject !== undefined && (subject.length === 0 || subject.length >= 100 || /[\x00-\x1f\x7f]/.test(subject))) {
      return error(400, 'InvalidParameter', 'Invalid parameter: Subject');
    }
    const attributes = attributesOf(form);
    if (typeof attributes === 'string') return error(400, 'InvalidParameter', `Invalid parameter: MessageAttributes: ${attributes}`);
    const size = Buffer.byteLength(message) + Object.entries(attributes).reduce((sum, [name, value]) => sum + Buffer.byteLength(name + value.dataType + value.value), 0);
    if (size > MAX_MESSAGE_BYTES) return error(400, 'InvalidParameter', 'Invalid parameter: Message too long');
    const messageGroupId = form.get('MessageGroupId') ?? undefined;
    const givenDeduplicationId = form.get('MessageDeduplicationId') ?? undefined;
    if (messageGroupId !== undefined && !FIFO_TOKEN.test(messageGroupId)) return error(400, 'InvalidParameter', 'Invalid parameter: MessageGroupId');
    if (givenDeduplicationId !== undefined && !FIFO_TOKEN.test(givenDeduplicationId)) return error(400, 'InvalidParameter', 'Invalid parameter: MessageDeduplicationId');
    const base = { topicArn, message, attributes, callerAccessKeyId: call.callerAccessKeyId, ...(subject !== undefined && { subject }), ...(messageGroupId !== undefined && { messageGroupId }) };

    if (!topic.fifo) {
      if (givenDeduplicationId !== undefined) return error(400, 'InvalidParameter', 'Invalid parameter: The request includes MessageDeduplicationId parameter that is not valid for this topic type');
      const messageId = randomUUID();
      published.push({ ...base, messageId });
      return { status: 200, xml: publishResponse(messageId, undefined) };
    }
    if (messageGroupId === undefined) return error(400, 'InvalidParameter', 'Invalid parameter: The MessageGroupId parameter is required for FIFO topics');
    const deduplicationId = givenDeduplicationId ?? (topic.contentBasedDeduplication ? createHash('sha256').update(message).digest('hex') : undefined);
    if (deduplicationId === undefined) {
      return error(400, 'InvalidParameter', 'Invalid parameter: The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly');
    }
    const now = Date.now();
    const earlier = topic.recentDeduplicationIds.get(deduplicationId);
    if (earlier !== undefined && now - earlier.at < DEDUPLICATION_INTERVAL_MS) return { status: 200, xml: publishResponse(earlier.messageId, earlier.sequenceNumber) };
    sequence += 1n;
    const accepted = { at: now, messageId: randomUUID(), sequenceNumber: sequence.toString() };
    topic.recentDeduplicationIds.set(deduplicationId, accepted);
    published.push({ ...base, messageId: accepted.messageId, messageDeduplicationId: deduplicationId, sequenceNumber: accepted.sequenceNumber });
    return { status: 200, xml: publishResponse(accepted.messageId, accepted.sequenceNumber) };
  }

  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const port = new RestartablePort(server, () => {
    for (const socket of sockets) socket.destroy();
  });
  await port.start();
  return {
    endpoint: `http://127.0.0.1:${port.boundPort}`,
    published,
    calls,
    createTopic(name, options = {}) {
      const fifo = options.fifo ?? false;
      // CreateTopic: a FIFO topic's name ends in .fifo (https://docs.aws.amazon.com/sns/latest/api/API_CreateTopic.html).
      const bare = fifo ? name.replace(/\.fifo$/, '') : name;
      if (!TOPIC_NAME.test(bare)) throw new Error(`SNS topic names are 1-256 of A-Z a-z 0-9 _ -: ${name}`);
      const arn = `arn:aws:sns:${TEST_SNS_REGION}:${TEST_SNS_ACCOUNT}:${bare}${fifo ? '.fifo' : ''}`;
      topics.set(arn, { fifo, contentBasedDeduplication: options.contentBasedDeduplication ?? false, recentDeduplicationIds: new Map() });
      return arn;
    },
    failNextPublishes(count, failure) {
      for (let index = 0; index < count; index += 1) injectedFailures.push(failure);
    },
    stop: () => port.stop(),
    restart: () => port.start(),
  };
}

/** MessageAttributes.entry.N.{Name, Value.DataType, Value.StringValue | Value.BinaryValue}, or what is wrong with them. */
function attributesOf(form: URLSearchParams): PublishedSnsMessage['attributes'] | string {
  const attributes: PublishedSnsMessage['attributes'] = {};
  for (let index = 1; form.has(`MessageAttributes.entry.${index}.Name`); index += 1) {
    const prefix = `MessageAttributes.entry.${index}`;
    const name = form.get(`${prefix}.Name`) ?? '';
    const dataType = form.get(`${prefix}.Value.DataType`) ?? '';
    const value = form.get(`${prefix}.Value.StringValue`) ?? form.get(`${prefix}.Value.BinaryValue`);
    if (name === '' || !ATTRIBUTE_TYPE.test(dataType) || value === null) return `attribute ${index} needs a Name, a DataType and a value`;
    attributes[name] = { dataType, value };
  }
  return Object.keys(attributes).length > MAX_ATTRIBUTES ? `more than ${MAX_ATTRIBUTES} attributes` : attributes;
}

function callerOf(request: IncomingMessage): string | null {
  return /Credential=([^/,\s]+)\//.exec(request.headers.authorization ?? '')?.[1] ?? null;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(response: ServerResponse, status: number, xml: string): void {
  response.writeHead(status, { 'content-type': 'text/xml', 'x-amzn-requestid': randomUUID() });
  response.end(xml);
}

function publishResponse(messageId: string, sequenceNumber: string | undefined): string {
  return (
    `<PublishResponse xmlns="${XMLNS}"><PublishResult><MessageId>${messageId}</MessageId>` +
    `${sequenceNumber === undefined ? '' : `<SequenceNumber>${sequenceNumber}</SequenceNumber>`}</PublishResult>` +
    `<ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></PublishResponse>`
  );
}

function error(status: number, code: string, message: string): Answer {
  const type = status >= 500 ? 'Receiver' : 'Sender';
  return {
    status,
    code,
    xml: `<ErrorResponse xmlns="${XMLNS}"><Error><Type>${type}</Type><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
  };
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
