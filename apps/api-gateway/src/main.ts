import { startGateway } from './bootstrap';
import { loadGatewayConfig } from './config/gateway-config';

// A configuration error is thrown while reading: inside the promise, so that it is reported in one line, not as a trace.
Promise.resolve()
  .then(() => startGateway(loadGatewayConfig(process.env)))
  .catch((error: unknown) => {
    process.stderr.write(`api-gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
