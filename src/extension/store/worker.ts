/**
 * The worker thread's entry point, kept tiny: it turns on V8's compile cache
 * for this thread before loading the store (store-worker.js, half a
 * megabyte of JavaScript), so every start after the first skips compiling
 * it. The store opens noticeably sooner, which is most of the extension's
 * time from activation to ready.
 */
import * as nodeModule from 'node:module';
import * as path from 'node:path';
import { workerData } from 'node:worker_threads';

import type { WorkerInit } from './protocol';

const booted = Date.now();
const { compileCacheDir } = workerData as WorkerInit;
/** What became of the compile cache, for the log: a start without it is only slower. */
let compileCache = 'off';
if (compileCacheDir) {
  try {
    // Node 22.1+; the status says whether it is on, or why not.
    const result = nodeModule.enableCompileCache?.(compileCacheDir);
    if (!result) compileCache = 'unsupported';
    else {
      const { ENABLED, ALREADY_ENABLED, DISABLED } = nodeModule.constants.compileCacheStatus;
      if (result.status === ENABLED || result.status === ALREADY_ENABLED) compileCache = 'on';
      else if (result.status === DISABLED) compileCache = 'disabled (NODE_DISABLE_COMPILE_CACHE)';
      else compileCache = `failed: ${result.message ?? 'unknown reason'}`;
    }
  } catch (error) {
    compileCache = `failed: ${(error as Error).message}`;
  }
}
// Loaded with CommonJS's require (not import(), which would start the ES module loader in this thread
// first), by a computed path so esbuild leaves the store out of this bundle.
const store = nodeModule.createRequire(__filename)(path.join(__dirname, ['store', 'worker.js'].join('-'))) as {
  start(booted: number, compileCache: string): void;
};
store.start(booted, compileCache);
