/** The oldest Node.js major still supported upstream (Node 20 reached its end of life on 2026-04-30) and by the AWS SDK from 2027. */
export const OLDEST_SUPPORTED_NODE_MAJOR = 22;

/**
 * On an older Node.js, one notice for the whole stack instead of the AWS SDK's upgrade warning printed by every
 * service it starts; null on a supported one. The Docker image runs the current LTS.
 */
export function outdatedNodeNotice(nodeVersion: string): string | null {
  const major = Number(/^v?(\d+)\./.exec(nodeVersion)?.[1]);
  if (!Number.isInteger(major) || major >= OLDEST_SUPPORTED_NODE_MAJOR) return null;
  return (
    `Node.js ${nodeVersion} is past its end of life: the services run on it (it is what CI tests), but use Node.js ` +
    `${OLDEST_SUPPORTED_NODE_MAJOR} or later (the Docker image runs Node.js 26, the current LTS); AWS SDK releases after January 2027 need it.`
  );
}

/** The services' environment with the AWS SDK's per-process warning turned off once the stack has said it. */
export function withoutRepeatedSdkWarning(env: Record<string, string>): Record<string, string> {
  return { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env };
}
