import { ALERT_TARGET_TYPES, type AlertRecord, type AlertTargetNameRequest, type AlertTargetType, type PutAlertTargetRequest } from '@svc/contracts';
import { Field } from './decorators';
import { guidList } from '../rules/guid';
import { oneOf } from '../rules/scalar-rules';
import * as rules from '../rules/alert-target-rules';
import { accessKey, secretKey } from '../rules/field-rules';

const requiredFor = (type: AlertTargetType) => ({
  requiredWhen: (request: Record<string, unknown>) => request['type'] === type,
  reason: `is required when Type is ${type}`,
});

/** PutAlertTarget: a field of another Type than the target's is refused by the registry, which knows what is stored. */
export class PutAlertTargetDto implements PutAlertTargetRequest {
  @Field(rules.alertTargetName, 'required', { note: 'Names the target; a Put with the name of an existing target replaces it' }) name!: string;
  @Field(oneOf(ALERT_TARGET_TYPES), 'required', { note: 'Webhook: a signed HTTPS POST; Sns: an Amazon SNS topic; Email: SMTP' }) type!: AlertTargetType;
  @Field(rules.webhookUrl, requiredFor('Webhook'), { note: 'Webhook only; kept sealed (its path may be a secret), shown by its scheme and host' }) url?: string;
  @Field(rules.signingSecret, 'optional', {
    default: 'the stored one when the target exists as a Webhook (required otherwise)',
    note: 'Webhook only: the HMAC-SHA256 key of the Svc-Signature header (docs/ALERTS.md)',
  })
  signingSecret?: string;
  @Field(rules.topicArn, requiredFor('Sns'), { note: 'Sns only; the region is the ARN\'s' }) topicArn?: string;
  @Field(accessKey, 'optional', { default: "the service's own AWS identity", note: 'Sns only, with SecretKey: keys allowed sns:Publish on the topic' }) accessKey?: string;
  @Field(secretKey, 'optional', { default: 'the stored one when AccessKey is unchanged', note: 'Sns only, with AccessKey' }) secretKey?: string;
  @Field(rules.smtpUrl, requiredFor('Email'), { note: 'Email only; kept sealed, shown by its host' }) smtpUrl?: string;
  @Field(rules.emailAddress, requiredFor('Email'), { note: 'Email only: the sender' }) from?: string;
  @Field(rules.recipients, requiredFor('Email'), { note: 'Email only: the recipients' }) to?: string[];
  @Field(rules.alertKinds, 'optional', { default: 'every kind' }) alertKinds?: AlertRecord['kind'][];
  @Field(guidList('ReplicationId'), 'optional', { default: 'every replication', note: 'Narrows the target to these replications\' alerts' })
  replicationIds?: string[];
}

/** DeleteAlertTarget. */
export class AlertTargetNameDto implements AlertTargetNameRequest {
  @Field(rules.alertTargetName, 'required') name!: string;
}
