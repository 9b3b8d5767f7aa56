// Bundles the extension, the CLI, the MCP server and the core library into dist/.
// `node esbuild.js --watch` rebuilds on change; `--production` minifies.
const path = require('node:path');
const esbuild = require('esbuild');

const { version } = require('./package.json');

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/**
 * zod's `z.locales` namespace pulls in every language it ships; we use only
 * its default English, so its locales index resolves to src/core/zod-locales.ts.
 * @type {import('esbuild').Plugin}
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    const shim = path.join(__dirname, 'src', 'core', 'zod-locales.ts');
    build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${path.sep}node_modules${path.sep}zod${path.sep}`) ? { path: shim } : undefined,
    );
  },
};

/**
 * The store's worker loads zod on first use (src/core/zod-loader.ts): a
 * require() of zod's ES module build, so that it shares the one copy that the
 * modules importing zod use. The CLI and the MCP server import zod at start-up
 * anyway, and lazily initialised zod modules there broke the MCP SDK's own
 * imports of zod, so they get zod-loader.eager.ts instead.
 * @type {(lazyZod: boolean) => import('esbuild').Plugin}
 */
const zodLoading = (lazyZod) => ({
  name: 'zod-loading',
  setup(build) {
    if (lazyZod) {
      build.onResolve({ filter: /^zod$/ }, async (args) => {
        if (args.kind !== 'require-call') return undefined;
        const resolved = await build.resolve(args.path, { kind: 'import-statement', resolveDir: args.resolveDir });
        return resolved.errors.length ? { errors: resolved.errors } : { path: resolved.path };
      });
    } else {
      const eager = path.join(__dirname, 'src', 'core', 'zod-loader.eager.ts');
      build.onResolve({ filter: /\/zod-loader$/ }, () => ({ path: eager }));
    }
  },
});

/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  platform: 'node',
  // VS Code's extension host and the CLI's floor: Node 22.13 has node:sqlite.
  target: 'node22.13',
  format: 'cjs',
  sourcemap: !production,
  sourcesContent: false,
  minify: production,
  external: ['vscode'],
  logLevel: 'warning',
  plugins: [zodEnglishOnly, zodLoading(false)],
};

const builds = [
  { ...common, entryPoints: { extension: 'src/extension.ts' }, outdir: 'dist' },
  // The store runs in this worker inside VS Code: node:sqlite is synchronous.
  {
    ...common,
    entryPoints: { worker: 'src/extension/store/worker.ts', 'store-worker': 'src/extension/store/store-worker.ts' },
    outdir: 'dist',
    plugins: [zodEnglishOnly, zodLoading(true)],
  },
  { ...common, entryPoints: { core: 'src/core/index.ts' }, outdir: 'dist' },
  {
    ...common,
    entryPoints: { cli: 'src/server/cli/main.ts' },
    outdir: 'dist',
    banner: { js: '#!/usr/bin/env node' },
    define: { PACKAGE_VERSION: JSON.stringify(version) },
  },
  // The MCP server on its own, for clients configured with `node dist/mcp.js`.
  {
    ...common,
    entryPoints: { mcp: 'src/server/mcp/main.ts' },
    outdir: 'dist',
    banner: { js: '#!/usr/bin/env node' },
    define: { PACKAGE_VERSION: JSON.stringify(version) },
  },
];

async function main() {
  if (watch) {
    for (const options of builds) await (await esbuild.context(options)).watch();
    console.log('[watch] build started');
    return;
  }
  await Promise.all(builds.map((options) => esbuild.build(options)));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
