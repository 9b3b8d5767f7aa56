import * as zod from 'zod';

import { jitless } from './zod-loader.config';

/** zod-loader.ts for bundles that load zod at start-up anyway (see esbuild.js). */
const configured = jitless(zod);

export const loadZod = (): typeof zod => configured;
