import { ConsoleApp } from './app/console-app.js';

// The page's entry module (index.html loads it; the CSP allows no inline script).
void new ConsoleApp({ window, subtle: window.crypto.subtle, fetch: window.fetch.bind(window) }).start();
