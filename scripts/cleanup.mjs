// Runs registered clean-ups (stop the VS Code server, close the browser,
// remove temp folders) once, whether the script ends normally, fails, or is
// interrupted with Ctrl-C. The VS Code server runs in its own process group,
// so a terminal's Ctrl-C does not reach it: we must stop it ourselves.
const tasks = [];
let running;

/** Registers `task` (sync or async); returns a function that unregisters it. */
export function onCleanup(task) {
  tasks.push(task);
  return () => {
    const index = tasks.indexOf(task);
    if (index !== -1) tasks.splice(index, 1);
  };
}

/** Runs every registered task, newest first; errors are printed, not thrown. */
export function cleanup() {
  running ??= (async () => {
    while (tasks.length > 0) {
      const task = tasks.pop();
      try {
        await task();
      } catch (error) {
        console.error('[vscode] clean-up failed:', error);
      }
    }
    running = undefined;
  })();
  return running;
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    console.error(`\n[vscode] ${signal}: stopping…`);
    void cleanup().finally(() => process.exit(130));
  });
}
