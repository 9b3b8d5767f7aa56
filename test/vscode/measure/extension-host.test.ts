// Measures what the extension costs VS Code's extension host (issue: the
// VS Code extension): time from activation to a store that answers, the
// first search, the longest event-loop block during a full doc sync and
// during searches on a 100k-entity store, and the memory it adds. Run with
// `npm run bench:vscode`; the harness prepares the stores and the documents
// (see test/vscode/runs.mjs) and prints the figures.
import * as assert from 'node:assert/strict';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

import * as vscode from 'vscode';

import { EXTENSION_ID, extensionApi, waitFor } from '../suite/extension-api';
import { report } from '../suite/harness';
import { workerCpuDuring } from './cpu';
import { byMapping, describe as described, peakDuring, sample } from './memory';

const MB = 1024 * 1024;

/**
 * Runs `work` while sampling the event loop every millisecond; returns the
 * longest delay seen and the longest garbage-collection pause in the same
 * window (a pause of the host's own heap, whoever's objects it collects).
 */
async function longestBlock<T>(
  work: () => Promise<T>,
): Promise<{ value: T; maxMs: number; p99Ms: number; gcMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  let gcMs = 0;
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMs = Math.max(gcMs, entry.duration);
  });
  gc.observe({ entryTypes: ['gc'] });
  histogram.enable();
  try {
    const value = await work();
    return { value, maxMs: histogram.max / 1e6, p99Ms: histogram.percentile(99) / 1e6, gcMs };
  } finally {
    histogram.disable();
    gc.disconnect();
  }
}

/** The same measurement over an idle stretch: what VS Code's other work (built-in extensions indexing the workspace, say) costs the loop anyway. */
async function idleBaseline(seconds = 5): Promise<number> {
  const { maxMs } = await longestBlock(() => new Promise((resolve) => setTimeout(resolve, seconds * 1000)));
  return maxMs;
}

function ms(value: number): string {
  return `${value.toFixed(1)} ms`;
}

describe('extension host cost', function () {
  // A full doc sync and a 100k store take longer than a test's usual minute.
  this.timeout(900_000);

  it('activation to ready, and the first search, with a 10k-entity store', async () => {
    const { startup, services, storeClient } = await extensionApi();
    const readyMs = await startup.ready;
    const stats = await (await services.memory()).stats();
    assert.ok(stats.memories >= 10_000, `the prepared store holds ${stats.memories} memories`);
    const { agentId, userId } = services.scope();
    const memory = await services.memory();
    const started = performance.now();
    const results = await memory.worker.searchAll(agentId, userId, 'deploy the service with docker', 10);
    const firstSearchMs = performance.now() - started;
    assert.ok(results.length > 0);
    await report(`[measure] store of ${stats.memories} memories`);
    await report(`[measure] activate() itself: ${ms(startup.activateMs)}`);
    await report(`[measure] activation to ready (store open in its worker, first query answered): ${ms(readyMs)}`);
    await report(`[measure] first search after activation: ${ms(firstSearchMs)}`);
    const { thread, load, open, delivery, compileCache } = (await storeClient()).startup;
    await report(
      `[measure] store start-up: thread ${thread} ms, loading the store's code ${load} ms (compile cache ${compileCache}), opening ${open} ms, the host handling the ready message ${delivery} ms later`,
    );
    // What else runs in this extension host (all of VS Code's built-ins with code, or none of them in measure-alone).
    const others = vscode.extensions.all.filter(
      (extension) => extension.id !== EXTENSION_ID && Boolean((extension.packageJSON as { main?: string }).main),
    );
    await report(`[measure] other extensions with code in this host: ${others.length}`);
    await report(
      `[measure] resident memory at activation ${(startup.rssAtActivation / MB).toFixed(0)} MB; with the 10k store open: ${described(await sample(storeClient))}; by mapping: ${byMapping()}`,
    );
  });

  it('the longest event-loop block during a full doc sync', async () => {
    const { services, docSync, storeClient } = await extensionApi();
    const config = vscode.workspace.getConfiguration('workspaceMemory');
    const idleMs = await idleBaseline();
    const startedAt = performance.now();
    let sawSyncing = false;
    const watching = docSync.onDidChange((status) => (sawSyncing ||= status.state === 'syncing'));
    const before = await sample(storeClient);
    const {
      peak,
      workerHeapPeak,
      value: blocks,
    } = await peakDuring(storeClient, () =>
      longestBlock(async () => {
        // Doc sync starts when it is turned on; wait until it has ingested everything.
        await config.update('docSync.enabled', true, vscode.ConfigurationTarget.Workspace);
        await waitFor('the doc sync to finish', () => sawSyncing && docSync.status.state === 'idle', 900_000);
        return (await services.memory()).rag.status(services.scope().agentId);
      }),
    );
    const { maxMs, p99Ms, gcMs, value } = blocks;
    watching.dispose();
    const handling = (await storeClient()).longestHandlingMs;
    const seconds = (performance.now() - startedAt) / 1000;
    assert.ok(value.files > 1000, `${value.files} files ingested`);
    await report(
      `[measure] full doc sync of ${value.files} files (${value.chunks} chunks) in ${seconds.toFixed(1)} s: longest event-loop block ${ms(maxMs)}, p99 ${ms(p99Ms)}, longest GC pause ${ms(gcMs)}, longest store message handled by the extension ${ms(handling)} (idle baseline just before: ${ms(idleMs)})`,
    );
    await report(`[measure] resident memory before the doc sync: ${described(before)}`);
    await report(
      `[measure] peak during the doc sync: ${described(peak)}; the worker's heap peaked at ${(workerHeapPeak.used / MB).toFixed(0)} MB used, ${(workerHeapPeak.total / MB).toFixed(0)} MB held`,
    );
    await report(`[measure] right after the doc sync: ${described(await sample(storeClient))}`);
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    await report(
      `[measure] 10 s after the doc sync: ${described(await sample(storeClient))}; by mapping: ${byMapping()}`,
    );
  });

  it('the longest event-loop block during searches on a 100k-entity store', async () => {
    const { services, storeClient } = await extensionApi();
    const big = process.env.WORKSPACE_MEMORY_MEASURE_BIG_STORE;
    assert.ok(big, 'the harness names the 100k store');
    const config = vscode.workspace.getConfiguration('workspaceMemory');
    await config.update('docSync.enabled', false, vscode.ConfigurationTarget.Workspace);
    // Switching stores restarts the worker: with the compile cache written by the first start, this is
    // the time to ready of every later VS Code start.
    const switched = performance.now();
    await config.update('storePath', big, vscode.ConfigurationTarget.Workspace);
    const memory = await waitFor(
      'the 100k store',
      async () => {
        const candidate = await services.memory();
        return (await candidate.stats()).memories >= 100_000 ? candidate : undefined;
      },
      60_000,
    );
    const restart = (await storeClient()).startup;
    await report(
      `[measure] store switched to 100k and answering after ${ms(performance.now() - switched)} (worker restart): thread ${restart.thread} ms, code ${restart.load} ms (compile cache ${restart.compileCache}), open ${restart.open} ms, message ${restart.delivery} ms`,
    );
    const idleMs = await idleBaseline();
    const { agentId, userId } = services.scope();
    const queries = [
      'deploy docker',
      'database migration rollback',
      'flaky test retry',
      'release notes',
      'api gateway timeout',
    ];
    const rssBefore = process.memoryUsage.rss();
    const beforeSearches = await sample(storeClient);
    const times: number[] = [];
    let searchCpu = { workerMs: 0, processMs: 0 };
    const { maxMs, p99Ms, gcMs } = await longestBlock(async () => {
      searchCpu = await workerCpuDuring(async () => {
        for (let i = 0; i < 200; i++) {
          const started = performance.now();
          await memory.worker.searchAll(agentId, userId, queries[i % queries.length]!, 20);
          times.push(performance.now() - started);
        }
      });
      for (let i = 0; i < 20; i++) await memory.recall(agentId, userId, queries[i % queries.length]!, {});
    });
    times.sort((a, b) => a - b);
    const handling = (await storeClient()).longestHandlingMs;
    await report(
      `[measure] 200 searches + 20 recalls on 100k: longest event-loop block ${ms(maxMs)}, p99 ${ms(p99Ms)}, longest GC pause ${ms(gcMs)}, longest store message handled ${ms(handling)} (idle baseline ${ms(idleMs)}); search round trip p50 ${ms(times[100]!)}, p95 ${ms(times[190]!)}; CPU for the 200 searches: the store's worker ${ms(searchCpu.workerMs)}, the whole process ${ms(searchCpu.processMs)}`,
    );
    const { startup } = await extensionApi();
    const heap = process.memoryUsage();
    await report(
      `[measure] extension host JavaScript heap (main thread, after the searches): ${(heap.heapUsed / MB).toFixed(0)} MB used of ${(heap.heapTotal / MB).toFixed(0)} MB`,
    );
    const after = await sample(storeClient);
    await report(
      `[measure] extension host resident memory: ${(startup.rssAtActivation / MB).toFixed(0)} MB at activation, ${(rssBefore / MB).toFixed(0)} MB before the searches, ${(after.rss / MB).toFixed(0)} MB after (${((after.rss - startup.rssAtActivation) / MB).toFixed(0)} MB added)`,
    );
    await report(`[measure] before the searches on 100k: ${described(beforeSearches)}`);
    await report(`[measure] after the searches on 100k: ${described(after)}; by mapping: ${byMapping()}`);
    // V8 hands the pages of a stopped worker's heap back to the system some seconds later, not at once.
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const settled = await sample(storeClient);
    await report(
      `[measure] 10 s later: ${described(settled)} (${((settled.rss - startup.rssAtActivation) / MB).toFixed(0)} MB added); by mapping: ${byMapping()}`,
    );
  });
});
