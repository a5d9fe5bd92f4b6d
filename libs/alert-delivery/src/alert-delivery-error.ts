/**
 * One delivery attempt failed. `retryable`: whether the same notice may succeed later unchanged (the receiver was down,
 * slow or throttling) or not until someone changes the target or the receiver (it refused the notice, the topic does not
 * exist). The message names the target without credentials or query strings.
 */
export class AlertDeliveryError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'AlertDeliveryError';
  }
}
