import { loadWorkerConfig } from '@svc/config';
import { runNatsWorker } from '@svc/messaging-nest';
import { AppModule } from './app.module';

runNatsWorker('extractor', (config, logger) => AppModule.forConfig(config, logger), () => loadWorkerConfig(process.env));
