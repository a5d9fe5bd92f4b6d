export { sampleAlertNotice } from './sample-alert-notice';
