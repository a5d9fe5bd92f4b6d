/** Whole seconds since work was claimed (never negative: clocks of registry instances may differ); null without work in flight. */
export function secondsInFlight(workStartedAt: string | null, now: Date): number | null {
  if (workStartedAt === null) return null;
  return Math.max(0, Math.floor((now.getTime() - Date.parse(workStartedAt)) / 1000));
}
