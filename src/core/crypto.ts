import type * as NodeCrypto from 'node:crypto';

import { lazy } from './lazy';

/**
 * node:crypto, loaded on first use. Requiring it costs a fresh worker thread
 * about 5 ms, and opening a store (all the extension waits for at start-up)
 * hashes nothing; the first write or snapshot loads it.
 */
export const nodeCrypto = lazy(
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (): typeof NodeCrypto => require('node:crypto') as typeof NodeCrypto,
);
