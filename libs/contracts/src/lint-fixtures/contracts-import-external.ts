// Lint fixture (never built): contracts depend on nothing but their schema library; a driver import is refused.
import { Type } from '@sinclair/typebox';
import { Pool } from 'pg';

export const schemaInContracts = Type.String();
export const driverInContracts = Pool;
