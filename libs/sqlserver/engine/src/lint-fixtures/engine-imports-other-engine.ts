// Lint fixture (never built): one engine importing another engine's library must be refused.
import { quoteIdent } from '@svc/postgres/common';

export const borrowedQuoting = quoteIdent;
