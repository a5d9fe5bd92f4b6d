// Lint fixture (never built): the engine list may import engine libraries (the control case).
import { postgresModule } from '@svc/postgres/engine';

export const listedEngine = postgresModule;
