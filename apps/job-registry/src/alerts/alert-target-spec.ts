import type { AlertTargetType, PutAlertTargetRequest } from '@svc/contracts';
import { fieldLabel } from '@svc/api-model';
import type { AlertTargetSpec } from '@svc/registry-store';

/** The fields of each type; any other type's field in a request is refused. */
const FIELDS_OF: Readonly<Record<AlertTargetType, readonly (keyof PutAlertTargetRequest)[]>> = {
  Webhook: ['url', 'signingSecret'],
  Sns: ['topicArn', 'accessKey', 'secretKey'],
  Email: ['smtpUrl', 'from', 'to'],
};

/**
 * The target a PutAlertTarget describes, the stored one's secrets kept where the request leaves them out (same type
 * only), or the field problems. The API model already checked each field's form and the ones its type requires.
 */
export function targetSpecOf(request: PutAlertTargetRequest, stored: AlertTargetSpec | null): { spec: AlertTargetSpec } | { problems: string[] } {
  const problems: string[] = [];
  for (const [type, fields] of Object.entries(FIELDS_OF) as [AlertTargetType, readonly (keyof PutAlertTargetRequest)[]][]) {
    if (type === request.type) continue;
    for (const field of fields) if (request[field] !== undefined) problems.push(`${fieldLabel([field])}: must not be given when Type is ${request.type}`);
  }
  if (problems.length > 0) return { problems };
  switch (request.type) {
    case 'Webhook': {
      const signingSecret = request.signingSecret ?? (stored?.type === 'Webhook' ? stored.signingSecret : undefined);
      if (signingSecret === undefined) return { problems: [`${fieldLabel(['signingSecret'])}: is required when Type is Webhook (for a new webhook target, or one that was of another Type)`] };
      return { spec: { type: 'Webhook', url: request.url ?? '', signingSecret } };
    }
    case 'Sns': {
      const keptSecret = stored?.type === 'Sns' && stored.accessKeyId === request.accessKey ? stored.secretAccessKey : undefined;
      const secretAccessKey = request.secretKey ?? keptSecret;
      if ((request.accessKey === undefined) !== (secretAccessKey === undefined)) {
        const missing = request.accessKey === undefined ? 'accessKey' : 'secretKey';
        return { problems: [`${fieldLabel([missing])}: give AccessKey and SecretKey together, or neither (the service's own AWS identity publishes)`] };
      }
      return {
        spec: {
          type: 'Sns',
          topicArn: request.topicArn ?? '',
          ...(request.accessKey !== undefined && secretAccessKey !== undefined && { accessKeyId: request.accessKey, secretAccessKey }),
        },
      };
    }
    case 'Email':
      return { spec: { type: 'Email', smtpUrl: request.smtpUrl ?? '', from: request.from ?? '', to: request.to ?? [] } };
  }
}
