import * as zod from 'zod';

/** zod-loader.ts for bundles that load zod at start-up anyway (see esbuild.js). */
export const loadZod = (): typeof zod => zod;
