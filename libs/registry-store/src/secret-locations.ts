import type { SecretLocation } from '@svc/crypto';

/** Where each sealed column lives: the associated data a sealed value is bound to. */
export function replicationSecretsAt(replicationId: string): SecretLocation {
  return { table: 'replications', rowId: replicationId, field: 'secrets' };
}

export function accessKeySecretAt(accessKeyId: string): SecretLocation {
  return { table: 'access_keys', rowId: accessKeyId, field: 'secret' };
}

/** The secret a rotation replaced, kept until its overlap ends. */
export function accessKeyPreviousSecretAt(accessKeyId: string): SecretLocation {
  return { table: 'access_keys', rowId: accessKeyId, field: 'previous_secret' };
}

/** A target's secrets (a webhook's URL and signing secret, SNS keys, the SMTP URL), one sealed JSON object. */
export function alertTargetSecretsAt(name: string): SecretLocation {
  return { table: 'alert_targets', rowId: name, field: 'secrets' };
}
