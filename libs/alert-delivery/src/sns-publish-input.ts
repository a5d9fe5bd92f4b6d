import { createHash } from 'node:crypto';
import type { PublishCommandInput } from '@aws-sdk/client-sns';
import { noticeHeadline, noticeJson, type AlertNotice } from './alert-notice';

/** arn:<partition>:sns:<region>:<account>:<topic> (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference-arns.html). */
const TOPIC_ARN = /^arn:(aws[a-z-]*):sns:([a-z]{2}(?:-[a-z]+)+-\d+):(\d{12}):([A-Za-z0-9_-]{1,256}(?:\.fifo)?)$/;

export interface ParsedTopicArn {
  region: string;
  fifo: boolean;
}

/** The topic's region and whether it is FIFO; null when `topicArn` is no SNS topic ARN. */
export function parseTopicArn(topicArn: string): ParsedTopicArn | null {
  const match = TOPIC_ARN.exec(topicArn);
  if (match === null) return null;
  const [, , region = '', , name = ''] = match;
  return { region, fifo: name.endsWith('.fifo') };
}

/**
 * Subject: "less than 100 characters long", no line breaks or control characters
 * (https://docs.aws.amazon.com/sns/latest/api/API_Publish.html). Kept to printable ASCII so every e-mail subscriber's
 * mail system shows it as is.
 */
export const SNS_SUBJECT_MAX_LENGTH = 99;

/** The subject line of a notice as SNS accepts it: printable ASCII (others → '?'), one line, at most 99 characters. */
export function snsSubject(notice: AlertNotice): string {
  const printable = `[svc-replication] ${noticeHeadline(notice)}`
    .replace(/\s+/g, ' ')
    .replace(/[^\x20-\x7e]/g, '?');
  return printable.length <= SNS_SUBJECT_MAX_LENGTH ? printable : `${printable.slice(0, SNS_SUBJECT_MAX_LENGTH - 3)}...`;
}

/**
 * MessageGroupId and MessageDeduplicationId: up to 128 of a-z A-Z 0-9 and the punctuation the Publish page lists.
 * A value outside that set is replaced by its SHA-256 (64 hex digits): the same value always gives the same token,
 * so deduplication of retries still works.
 */
const FIFO_TOKEN = /^[A-Za-z0-9!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]{1,128}$/;

export function fifoToken(value: string): string {
  return FIFO_TOKEN.test(value) ? value : createHash('sha256').update(value, 'utf8').digest('hex');
}

/** The Publish request for a notice: the JSON notice as Message, kind/state/replicationId as String attributes. */
export function snsPublishInput(topicArn: string, fifo: boolean, notice: AlertNotice): PublishCommandInput {
  return {
    TopicArn: topicArn,
    Subject: snsSubject(notice),
    Message: noticeJson(notice),
    MessageAttributes: {
      kind: { DataType: 'String', StringValue: notice.kind },
      state: { DataType: 'String', StringValue: notice.state },
      replicationId: { DataType: 'String', StringValue: notice.replicationId },
    },
    ...(fifo && { MessageGroupId: fifoToken(notice.replicationId), MessageDeduplicationId: fifoToken(notice.deliveryId) }),
  };
}
