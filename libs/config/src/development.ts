/**
 * The master key `npm start` falls back to: public (it is in this repository), so it must never seal real
 * secrets. The registry refuses it unless DEVELOPMENT_FLAG is set.
 */
export const DEVELOPMENT_MASTER_KEY = '6c6f63616c2d6465762d6d61737465722d6b65792d6e6f742d7365637265742e';

/** Set to true only by `npm start` (tools/local-stack): allows the public development defaults. Never in production. */
export const DEVELOPMENT_FLAG = 'SVC_DEVELOPMENT';
