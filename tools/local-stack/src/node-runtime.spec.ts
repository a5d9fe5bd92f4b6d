import { outdatedNodeNotice, withoutRepeatedSdkWarning } from './node-runtime';

describe('outdatedNodeNotice', () => {
  it.each(['v20.20.2', 'v18.0.0', '21.7.1'])('explains once that %s is past its end of life', (version) => {
    expect(outdatedNodeNotice(version)).toContain(`Node.js ${version} is past its end of life`);
  });

  it.each(['v22.12.0', 'v24.11.1', 'v26.10.0', 'not a version'])('says nothing on %s', (version) => {
    expect(outdatedNodeNotice(version)).toBeNull();
  });
});

describe('withoutRepeatedSdkWarning', () => {
  it('turns the SDK warning off unless the user set the variable', () => {
    expect(withoutRepeatedSdkWarning({ PORT: '8080' })).toEqual({ PORT: '8080', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });
    expect(withoutRepeatedSdkWarning({ AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'false' })).toEqual({ AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'false' });
  });
});
