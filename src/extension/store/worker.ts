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
if (compileCacheDir) {
  try {
    // Node 22.1+; without it, or if the folder cannot be written, starts are only slower.
    nodeModule.enableCompileCache?.(compileCacheDir);
  } catch {
    // The store works the same without the cache.
  }
}
// Loaded with CommonJS's require (not import(), which would start the ES module loader in this thread
// first), by a computed path so esbuild leaves the store out of this bundle.
const store = nodeModule.createRequire(__filename)(path.join(__dirname, ['store', 'worker.js'].join('-'))) as {
  start(booted: number): void;
};
store.start(booted);
