// CPU time per thread of the extension host, from /proc (Linux): the store's
// worker is one of the threads Node names "WorkerThread", so the one that
// worked most during a measurement is ours, and its CPU time is what the
// searches cost, apart from whatever else the host ran meanwhile.
import * as fs from 'node:fs';

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU ms (user + system) so far of each of this process's threads named `name`, by thread id. */
function threadCpu(name: string): Map<string, number> {
  const times = new Map<string, number>();
  for (const thread of fs.readdirSync('/proc/self/task')) {
    try {
      if (fs.readFileSync(`/proc/self/task/${thread}/comm`, 'utf8').trim() !== name) continue;
      // Fields after the command's closing parenthesis; utime and stime are the 12th and 13th of them.
      const fields = fs.readFileSync(`/proc/self/task/${thread}/stat`, 'utf8').split(') ')[1]!.split(' ');
      times.set(thread, ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND);
    } catch {
      // The thread ended between listing and reading.
    }
  }
  return times;
}

/** Runs `work`; returns the CPU ms of the busiest worker thread meanwhile, and of the whole process. */
export async function workerCpuDuring<T>(
  work: () => Promise<T>,
): Promise<{ value: T; workerMs: number; processMs: number }> {
  const before = threadCpu('WorkerThread');
  const processBefore = process.cpuUsage();
  const value = await work();
  const processUsed = process.cpuUsage(processBefore);
  let workerMs = 0;
  for (const [thread, ms] of threadCpu('WorkerThread')) workerMs = Math.max(workerMs, ms - (before.get(thread) ?? 0));
  return { value, workerMs, processMs: (processUsed.user + processUsed.system) / 1000 };
}
