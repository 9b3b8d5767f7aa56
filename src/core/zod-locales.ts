/**
 * Stands in for zod's `locales` index in our bundles (see esbuild.js): the
 * index re-exports every language zod ships (about 250 KB minified) through
 * `z.locales`, which bundlers cannot tree-shake, and every bundle would pay
 * to parse them at start-up. We only use zod's default English messages.
 */
export { default as en } from 'zod/v4/locales/en.js';
