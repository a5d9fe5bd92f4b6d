import { OPERATION_ALIASES } from './args/operation-alias';

const aliasLines = Object.entries(OPERATION_ALIASES)
  .map(([alias, operation]) => `  ${alias.padEnd(21)}${operation}`)
  .join('\n');

export const USAGE = `Usage:
  svc <operation> [--file body.xml|body.json] [--body TEXT] [--format json|xml]
                  [--replication-id ID] [--set Path.To.Field=value ...]
                  [--endpoint URL] [--profile NAME] [--region REGION] [--raw]
  svc keys create --operations Name,Name,...|* [--description TEXT] [--nats-url URL]
  svc --help

Operations (API name or alias):
${aliasLines}

Body: --file sends the file unchanged (.xml or .json); --body sends the text unchanged; otherwise a
JSON body (XML with --format xml) is built from --replication-id and --set. With an XML body the
operation may be left out: it is read from the root element <OperationRequest>.

Credentials: SVC_ACCESS_KEY_ID and SVC_SECRET_ACCESS_KEY, else svc_access_key_id and
svc_secret_access_key of the profile (--profile, SVC_PROFILE, default "default") in ~/.svc/credentials
(or SVC_SHARED_CREDENTIALS_FILE). Endpoint: --endpoint, SVC_ENDPOINT, profile "endpoint",
http://127.0.0.1:8080. Region: --region, SVC_REGION, profile "region", us-east-1.

Exit codes: 0 success, 1 error answer, 2 service unreachable, 64 usage, 66 unreadable --file,
78 credentials or profile problem.
`;
