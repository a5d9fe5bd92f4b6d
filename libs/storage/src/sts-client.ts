import { AssumeRoleCommand, GetCallerIdentityCommand, STSClient, type STSClientConfig } from '@aws-sdk/client-sts';
import { RoleAssumptionError, STS_REQUEST_TIMEOUT_MS, type AssumeRoleCall, type RoleCredentials } from './assumed-role';
import { DEFAULT_S3_REGION } from './s3-region';
import type { S3Settings } from './s3-settings';

/** The settings STS is asked with: the service's own identity is used for this and nothing else. */
export type StsSettings = Pick<S3Settings, 'stsEndpoint' | 'serviceAccessKeyId' | 'serviceSecretAccessKey'>;

/**
 * Clients of STS, one per region: the regional endpoint of the bucket's region (so a China or GovCloud bucket asks
 * its own partition's STS), or STS_ENDPOINT when set (a VPC endpoint, a test double). They sign with the service's
 * keys (S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY) or the AWS default provider chain.
 */
export class StsClients {
  private readonly clients = new Map<string, STSClient>();

  constructor(private readonly settings: StsSettings) {}

  /** sts:AssumeRole (https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html). */
  readonly assumeRole: AssumeRoleCall = async (input) => {
    const answer = await this.clientFor(input.region).send(
      new AssumeRoleCommand({
        RoleArn: input.roleArn,
        RoleSessionName: input.roleSessionName,
        ExternalId: input.externalId,
        DurationSeconds: input.durationSeconds,
      }),
    );
    const credentials = answer.Credentials;
    if (!credentials?.AccessKeyId || !credentials.SecretAccessKey || !credentials.SessionToken || !credentials.Expiration) {
      throw new RoleAssumptionError(input.roleArn, input.externalId, 'IncompleteCredentials', 'STS answered without complete credentials');
    }
    const assumed: RoleCredentials = {
      accessKeyId: credentials.AccessKeyId,
      secretAccessKey: credentials.SecretAccessKey,
      sessionToken: credentials.SessionToken,
      expiration: credentials.Expiration,
    };
    return assumed;
  };

  /**
   * The ARN a customer's trust policy names as Principal: sts:GetCallerIdentity of the service's own identity
   * (https://docs.aws.amazon.com/STS/latest/APIReference/API_GetCallerIdentity.html). A service that runs as a
   * role itself is seen as `…:sts::<account>:assumed-role/<role>/<session>`; trust names the role. Null when STS
   * cannot say.
   */
  async serviceIdentity(region: string): Promise<string | null> {
    try {
      const answer = await this.clientFor(region).send(new GetCallerIdentityCommand({}));
      return answer.Arn === undefined ? null : trustedPrincipalOf(answer.Arn);
    } catch {
      return null;
    }
  }

  destroy(): void {
    for (const client of this.clients.values()) client.destroy();
    this.clients.clear();
  }

  private clientFor(region: string): STSClient {
    const name = region.trim() === '' ? DEFAULT_S3_REGION : region.trim();
    let client = this.clients.get(name);
    if (client === undefined) {
      client = new STSClient(stsClientConfig(this.settings, name));
      this.clients.set(name, client);
    }
    return client;
  }
}

export function stsClientConfig(settings: StsSettings, region: string): STSClientConfig {
  const { stsEndpoint, serviceAccessKeyId, serviceSecretAccessKey } = settings;
  return {
    region,
    maxAttempts: 2,
    // requestTimeout alone only logs a warning (NodeHttpHandlerOptions.throwOnRequestTimeout): a silent STS held the caller for ever.
    requestHandler: { connectionTimeout: STS_REQUEST_TIMEOUT_MS, requestTimeout: STS_REQUEST_TIMEOUT_MS, throwOnRequestTimeout: true, socketTimeout: STS_REQUEST_TIMEOUT_MS },
    ...(stsEndpoint !== undefined && { endpoint: stsEndpoint }),
    ...(serviceAccessKeyId && serviceSecretAccessKey && { credentials: { accessKeyId: serviceAccessKeyId, secretAccessKey: serviceSecretAccessKey } }),
  };
}

/** `arn:aws:sts::1:assumed-role/Name/session` → `arn:aws:iam::1:role/Name`; any other ARN as it is. */
export function trustedPrincipalOf(callerArn: string): string {
  const assumed = /^arn:([\w-]+):sts::(\d+):assumed-role\/([^/]+)\/.+$/.exec(callerArn);
  return assumed === null ? callerArn : `arn:${assumed[1]}:iam::${assumed[2]}:role/${assumed[3]}`;
}
