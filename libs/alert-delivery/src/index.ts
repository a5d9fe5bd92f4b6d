export type { AlertTargetType, AlertTargetSpec, EmailTarget, SnsTarget, WebhookTarget } from './alert-target';
export type { AlertNotice } from './alert-notice';
export { AlertDeliveryError } from './alert-delivery-error';
export { DEFAULT_ALERT_TIMEOUT_MS, DEFAULT_ALERT_USER_AGENT, createAlertSender, type AlertSender, type AlertSenderSettings } from './alert-sender';
export { DEFAULT_SIGNATURE_TOLERANCE_SECONDS, SIGNATURE_HEADER, signWebhookBody, verifyWebhookSignature } from './webhook-signature';
