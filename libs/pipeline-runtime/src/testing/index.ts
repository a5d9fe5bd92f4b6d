export { FakeEngine, FakeSource, FakeStaging, FakeWarehouse } from './fake-engine';
export { RecordingPublisher, staticConfigs } from './fake-messaging';
