import { startGateway } from './bootstrap';
import { loadGatewayConfig } from './config/gateway-config';

startGateway(loadGatewayConfig(process.env)).catch((error: unknown) => {
  process.stderr.write(`api-gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
