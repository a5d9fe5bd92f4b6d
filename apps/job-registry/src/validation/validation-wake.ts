import { Injectable } from '@nestjs/common';

/** How StartReplicationValidation asks the validation dispatcher for a round before its tick. */
@Injectable()
export class ValidationWake {
  private listener: () => void = () => undefined;

  listen(listener: () => void): void {
    this.listener = listener;
  }

  wake(): void {
    this.listener();
  }
}
