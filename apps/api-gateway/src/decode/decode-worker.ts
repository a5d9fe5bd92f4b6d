// Entry of the gateway's decode threads (see request-decoder.ts): reads request bodies off the event loop.
import { decodeOperationRequest } from './operation-decoding';
import { serveWorkerTasks } from './worker-tasks';

serveWorkerTasks(decodeOperationRequest);
