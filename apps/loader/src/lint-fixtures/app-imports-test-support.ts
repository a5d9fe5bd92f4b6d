// Lint fixture (never built): production code importing test support must be refused.
import { FakeEngine } from '@svc/pipeline-runtime/testing';

export const fakeInProduction = new FakeEngine();
