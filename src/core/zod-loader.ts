import type * as Zod from 'zod';

import { lazy } from './lazy';
import { jitless } from './zod-loader.config';

/**
 * zod, loaded when a schema is first needed. Opening a store needs none, and
 * evaluating zod was the largest part of the store worker's start-up after
 * the schemas themselves (see README, "Performance"). Bundles that import zod
 * at start-up anyway (the CLI, the MCP server) get zod-loader.eager.ts
 * instead (see esbuild.js).
 */
export const loadZod = lazy(
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (): typeof Zod => jitless(require('zod') as typeof Zod),
);
