/** The channels an alert notice can be sent over. */
export type AlertTargetType = 'Webhook' | 'Sns' | 'Email';

/** An HTTPS endpoint of the customer's: each notice is POSTed as JSON and signed with `signingSecret` (docs/ALERTS.md). */
export interface WebhookTarget {
  type: 'Webhook';
  url: string;
  signingSecret: string;
}

/**
 * An Amazon SNS topic. The region is the ARN's (arn:aws:sns:<region>:<account>:<name>); without a key pair the AWS
 * default credential chain signs (environment, IRSA web identity, instance profile).
 */
export interface SnsTarget {
  type: 'Sns';
  topicArn: string;
  accessKeyId?: string;
  secretAccessKey?: string;
}

/**
 * An SMTP relay: `smtp://user:pass@host:587` (STARTTLS, required unless the host is loopback) or
 * `smtps://user:pass@host:465` (TLS from the first byte).
 */
export interface EmailTarget {
  type: 'Email';
  smtpUrl: string;
  from: string;
  to: string[];
}

export type AlertTargetSpec = WebhookTarget | SnsTarget | EmailTarget;
