import { OPERATION_ALIASES } from './args/operation-alias';

const aliasLines = Object.entries(OPERATION_ALIASES)
  .map(([alias, operation]) => `  ${alias.padEnd(21)}${operation}`)
  .join('\n');

export const USAGE = `Usage:
  svc <operation> [--file body.xml|body.json] [--body TEXT] [--format json|xml]
                  [--replication-id ID] [--set Path.To.Field=value ...]
                  [--endpoint URL] [--profile NAME] [--region REGION] [--raw]
                  [--ca-file FILE] [--insecure]
  svc validate REPLICATION-ID [--tables "[schema].[table],..."]     (StartReplicationValidation)
  svc validation REPLICATION-ID [--validation-id ID]               (DescribeReplicationValidation; the latest without one)
  svc repair REPLICATION-ID --validation-id ID [--tables "[schema].[table],..."]
                                                                   (RepairReplication; every Mismatched table without --tables)
      all three take the other flags of svc <operation> too (--format, --endpoint, --raw, ...)
  svc describe --replication-id ID --watch [--interval SECONDS] [--until-tracking]
               [--endpoint URL] [--profile NAME] [--region REGION]
               [--ca-file FILE] [--insecure]
  svc keys create --operations Name,Name,...|* [--replications own|all] [--description TEXT]
                  [--expires-at ISO-TIMESTAMP]
  svc keys list | disable | enable | delete --access-key-id ID
  svc keys rotate --access-key-id ID [--overlap-minutes N]      (default 60: the old secret signs meanwhile)
  svc keys expire --access-key-id ID --at ISO-TIMESTAMP|never
      svc keys calls the signed API with your credentials (and --endpoint, --profile, --region, --ca-file,
      --insecure); --over-bus [--nats-url URL] asks the registry over NATS as an operator instead (the first key)
  svc --help

Operations (API name or alias):
${aliasLines}

Body: --file sends the file unchanged (.xml or .json); --body sends the text unchanged; otherwise a
JSON body (XML with --format xml) is built from --replication-id and --set. With an XML body the
operation may be left out: it is read from the root element <OperationRequest>.

Watch: describe --watch calls Describe every --interval seconds (default 2, from 0.5) and shows each table's
phase, a progress bar with rows copied/estimated, rate and ETA while seeding, lag once tracking, and its last
error; redrawn in place on a terminal, one plain frame per call otherwise. It follows the replication until
Ctrl-C (130), saying under the frame when every table is tracking or something failed. With --until-tracking
(for scripts) it ends when every table is tracking or, without a primary key, Untracked (0), or when the
replication or a table has failed (1). 5xx answers and connections lost after the first answer are shown and retried; other errors
end it as describe would.

Credentials: SVC_ACCESS_KEY_ID and SVC_SECRET_ACCESS_KEY, else svc_access_key_id and
svc_secret_access_key of the profile (--profile, SVC_PROFILE, default "default") in ~/.svc/credentials
(or SVC_SHARED_CREDENTIALS_FILE). Endpoint: --endpoint, SVC_ENDPOINT, profile "endpoint",
http://127.0.0.1:8080. Region: --region, SVC_REGION, profile "region", us-east-1.
With no credentials set and no profile named, the development key of an npm start running from this
checkout (tmp/local-stack.json), said on stderr.

HTTPS: every call is signed with your secret's key and Create/Alter bodies carry database passwords and
S3 keys, so svc refuses plain http:// to a host other than loopback (127.0.0.0/8, ::1, localhost): use an
https:// endpoint, or --insecure to send over plain HTTP anyway. --ca-file (or SVC_CA_FILE) names the PEM
certificate of the CA that signed the gateway's certificate, trusted instead of the system's CAs; the
certificate is always verified.

Exit codes: 0 success, 1 error answer (or, watching, a failure), 2 service unreachable, 64 usage,
66 unreadable --file, 78 credentials, profile or CA file problem or plain HTTP refused, 130 watch stopped by
Ctrl-C.
`;
