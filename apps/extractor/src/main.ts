import { loadWorkerConfig } from '@svc/config';
import { runNatsWorker } from '@svc/messaging-nest';
import { AppModule } from './app.module';

runNatsWorker('extractor', AppModule, () => loadWorkerConfig(process.env));
