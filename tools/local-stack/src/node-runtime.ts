/** The oldest Node.js the service runs on (package.json `engines`, the README, what CI runs). */
export const MINIMUM_NODE_VERSION = '20.19.0';
/** The oldest Node.js major still supported upstream (Node 20 reached its end of life on 2026-04-30) and by the AWS SDK from 2027. */
export const OLDEST_SUPPORTED_NODE_MAJOR = 22;
/** The Node.js major of the Docker image (Dockerfile's NODE_IMAGE). */
export const DOCKER_NODE_MAJOR = 26;

/** Why the service cannot run on `nodeVersion` (older than MINIMUM_NODE_VERSION); null when it can. */
export function unsupportedNodeProblem(nodeVersion: string): string | null {
  const [major = 0, minor = 0] = (/^v?(\d+)\.(\d+)\./.exec(nodeVersion) ?? []).slice(1).map(Number);
  const [minimumMajor = 0, minimumMinor = 0] = MINIMUM_NODE_VERSION.split('.').map(Number);
  if (major > minimumMajor || (major === minimumMajor && minor >= minimumMinor)) return null;
  return `Node.js ${nodeVersion} is too old: the service needs ${MINIMUM_NODE_VERSION} or later (${OLDEST_SUPPORTED_NODE_MAJOR} or later recommended)`;
}

/**
 * On an older Node.js, one notice for the whole stack instead of the AWS SDK's upgrade warning printed by every
 * service it starts; null on a supported one. The Docker image runs the current LTS.
 */
export function outdatedNodeNotice(nodeVersion: string): string | null {
  const major = Number(/^v?(\d+)\./.exec(nodeVersion)?.[1]);
  if (!Number.isInteger(major) || major >= OLDEST_SUPPORTED_NODE_MAJOR || unsupportedNodeProblem(nodeVersion) !== null) return null;
  return (
    `Node.js ${nodeVersion} is past its end of life: the services run on it (${MINIMUM_NODE_VERSION} or later; it is what CI tests), but ` +
    `Node.js ${OLDEST_SUPPORTED_NODE_MAJOR} or later is recommended (the Docker image runs Node.js ${DOCKER_NODE_MAJOR}); AWS SDK releases after January 2027 need it.`
  );
}

/** The services' environment with the AWS SDK's per-process warning turned off once the stack has said it. */
export function withoutRepeatedSdkWarning(env: Record<string, string>): Record<string, string> {
  return { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env };
}
