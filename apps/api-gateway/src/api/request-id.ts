let sequence = 0;

/** Numeric request ids (the seed's example is a number): milliseconds since the epoch and a 3-digit sequence. */
export function nextRequestId(now: number = Date.now()): number {
  sequence = (sequence + 1) % 1000;
  return now * 1000 + sequence;
}
