import { createHash } from 'node:crypto';
import { PublishCommand, SNSClient, type SNSClientConfig } from '@aws-sdk/client-sns';
import { AlertDeliveryError } from './alert-delivery-error';
import { errorFields } from './error-fields';
import type { AlertNotice } from './alert-notice';
import type { SnsTarget } from './alert-target';
import { redactSecrets } from './redaction';
import { classifySnsError } from './sns-error-classification';
import { parseTopicArn, snsPublishInput } from './sns-publish-input';

export interface SnsChannelSettings {
  /** SNS_ENDPOINT: a VPC endpoint or a test double; absent → the region's public endpoint. */
  endpoint?: string;
  timeoutMs: number;
}

/** Publishes notices to SNS topics; one SDK client per region and key pair, reused. */
export class SnsChannel {
  private readonly clients = new Map<string, SNSClient>();

  constructor(private readonly settings: SnsChannelSettings) {}

  async send(target: SnsTarget, notice: AlertNotice): Promise<void> {
    const topic = parseTopicArn(target.topicArn);
    if (topic === null) throw new AlertDeliveryError(`SNS topic ARN ${JSON.stringify(target.topicArn)} is not arn:<partition>:sns:<region>:<account>:<topic>`, false);
    if ((target.accessKeyId === undefined) !== (target.secretAccessKey === undefined)) {
      throw new AlertDeliveryError(`SNS topic ${target.topicArn}: give both accessKeyId and secretAccessKey, or neither (the AWS default credentials)`, false);
    }
    try {
      await this.clientFor(topic.region, target).send(new PublishCommand(snsPublishInput(target.topicArn, topic.fifo, notice)));
    } catch (error) {
      const failure = classifySnsError(error);
      const status = failure.httpStatus === undefined ? '' : ` (HTTP ${failure.httpStatus})`;
      const { message: said } = errorFields(error);
      const detail = said === '' ? '' : `: ${said}`;
      const message = redactSecrets(`SNS topic ${target.topicArn}: ${failure.code}${status}${detail}`, [target.secretAccessKey ?? '']);
      throw new AlertDeliveryError(message, failure.retryable);
    }
  }

  close(): void {
    for (const client of this.clients.values()) client.destroy();
    this.clients.clear();
  }

  private clientFor(region: string, target: SnsTarget): SNSClient {
    const keys = target.accessKeyId !== undefined && target.secretAccessKey !== undefined ? { accessKeyId: target.accessKeyId, secretAccessKey: target.secretAccessKey } : undefined;
    // The secret is part of the key only as a digest: a rotated secret gets a new client.
    const cacheKey = [region, keys?.accessKeyId ?? '', keys === undefined ? '' : createHash('sha256').update(keys.secretAccessKey).digest('hex')].join('\n');
    let client = this.clients.get(cacheKey);
    if (client === undefined) {
      client = new SNSClient(snsClientConfig(this.settings, region, keys));
      this.clients.set(cacheKey, client);
    }
    return client;
  }
}

export function snsClientConfig(settings: SnsChannelSettings, region: string, keys: { accessKeyId: string; secretAccessKey: string } | undefined): SNSClientConfig {
  const timeoutMs = settings.timeoutMs;
  return {
    region,
    // One attempt: retries with backoff are the caller's (the job-registry's outbox), which sees each failure.
    maxAttempts: 1,
    // requestTimeout alone only logs a warning (NodeHttpHandlerOptions.throwOnRequestTimeout).
    requestHandler: { connectionTimeout: timeoutMs, requestTimeout: timeoutMs, throwOnRequestTimeout: true, socketTimeout: timeoutMs },
    ...(settings.endpoint !== undefined && { endpoint: settings.endpoint }),
    ...(keys !== undefined && { credentials: keys }),
  };
}
