/**
 * Ctrl-C or a kill while a benchmark runs: `cleanUp` (its services, databases and clusters go too), then exit 130.
 * Returns what stops watching, for the benchmark's own clean-up at its end.
 */
export function cleanUpOnInterrupt(cleanUp: () => Promise<void>, log: (line: string) => void): () => void {
  const interrupted = (signal: NodeJS.Signals) => {
    log(`${signal}: cleaning up`);
    void cleanUp().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  return () => {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
  };
}
