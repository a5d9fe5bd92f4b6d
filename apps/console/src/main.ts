import { ConsoleApp } from './app/console-app.js';
import { signingCrypto } from './signing/signing-context.js';

// The page's entry module (index.html loads it; the CSP allows no inline script).
void new ConsoleApp({ window, subtle: signingCrypto(window), fetch: window.fetch.bind(window) }).start();
