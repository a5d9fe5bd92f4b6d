// Lint fixture (never built): an app importing an engine library must be refused.
import { postgresEngine } from '@svc/postgres/engine';

export const engineFromAnApp = postgresEngine;
