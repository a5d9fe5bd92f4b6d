// Lint fixture (never built): the engine table may import engine libraries (the control case).
import { postgresEngine } from '@svc/postgres-engine';

export const listedEngine = postgresEngine;
