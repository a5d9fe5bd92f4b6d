/** The SVC_WORKER_KEY of test stacks and harnesses (never a production value): registry and workers share it. */
export const TEST_WORKER_KEY = 'b'.repeat(64);
