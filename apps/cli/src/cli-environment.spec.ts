import { readCliEnvironment } from './cli-environment';

describe('readCliEnvironment', () => {
  it('maps the documented variables and treats blank ones as unset', () => {
    expect(
      readCliEnvironment({
        SVC_ACCESS_KEY_ID: 'AK',
        SVC_SECRET_ACCESS_KEY: 'sk',
        SVC_PROFILE: ' prod ',
        SVC_SHARED_CREDENTIALS_FILE: '/tmp/c',
        SVC_ENDPOINT: '',
        SVC_REGION: '   ',
        NATS_URL: 'nats://n:4222',
        SVC_CA_FILE: ' /etc/svc/ca.pem ',
        UNRELATED: 'x',
      }),
    ).toEqual({ accessKeyId: 'AK', secretAccessKey: 'sk', profile: 'prod', credentialsFile: '/tmp/c', natsUrl: 'nats://n:4222', caFile: '/etc/svc/ca.pem' });
  });
});
