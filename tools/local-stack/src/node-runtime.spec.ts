import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOCKER_NODE_MAJOR, MINIMUM_NODE_VERSION, outdatedNodeNotice, unsupportedNodeProblem, withoutRepeatedSdkWarning } from './node-runtime';

const repoRoot = join(__dirname, '..', '..', '..');
const read = (file: string) => readFileSync(join(repoRoot, file), 'utf8');

describe('outdatedNodeNotice', () => {
  it.each(['v20.20.2', 'v20.19.0', '21.7.1'])('explains once that %s is past its end of life', (version) => {
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

describe('unsupportedNodeProblem', () => {
  it.each(['v18.20.4', 'v20.18.3', 'v16.0.0'])('refuses %s, naming the minimum', (version) => {
    expect(unsupportedNodeProblem(version)).toBe(`Node.js ${version} is too old: the service needs ${MINIMUM_NODE_VERSION} or later (22 or later recommended)`);
  });

  it.each(['v20.19.0', 'v20.20.2', 'v22.0.0', 'v24.11.1', 'v26.10.0'])('runs on %s', (version) => {
    expect(unsupportedNodeProblem(version)).toBeNull();
  });
});

/** Issue 20: the README, `engines`, the start-up notice and the Docker image said three different things. */
describe('the Node.js versions the project states', () => {
  it('are the same in package.json, the README, the Dockerfile and the running tests', () => {
    const packageJson = JSON.parse(read('package.json')) as { engines: { node: string } };
    expect(packageJson.engines.node).toBe(`>=${MINIMUM_NODE_VERSION}`);
    const minimum = MINIMUM_NODE_VERSION.split('.').slice(0, 2).join('.');
    expect(read('README.md')).toContain(`needs **Node.js ${minimum} or later**`);
    expect(read('README.md')).toContain(`the Docker image on Node.js ${DOCKER_NODE_MAJOR}`);
    expect(read('Dockerfile')).toMatch(new RegExp(`^ARG NODE_IMAGE=node:${DOCKER_NODE_MAJOR}-`, 'm'));
    // What runs this test is what CI tests: it must be a version the project says it supports.
    expect(unsupportedNodeProblem(process.version)).toBeNull();
  });
});
