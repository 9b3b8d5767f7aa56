// The integration-test runs. Each run gets its own VS Code server, browser,
// user settings and copy of its workspace, and runs its own test files.
//
// Trust: the web workbench enables workspace trust by default and does not
// trust a folder it has never seen, so the main run turns trust off (every
// folder is then trusted, as with `code --disable-workspace-trust`) and the
// restricted run turns it on, with no start-up prompt, which leaves the
// folder in Restricted Mode.

import { prepareInstalled } from './installed/prepare.mjs';
import { prepareMeasure } from './measure/prepare.mjs';

export const RUNS = [
  {
    name: 'main',
    tests: 'test/vscode/suite/**/*.test.ts',
    workspace: 'samples/workspace',
    // Test-only extensions loaded beside ours: the fake language model the chat tests select.
    extensions: ['test/vscode/fixtures/fake-model'],
    settings: {
      'security.workspace.trust.enabled': false,
    },
  },
  {
    // Not part of `npm test`: `npm run bench:vscode` runs it (see test/vscode/measure/).
    name: 'measure',
    optional: true,
    tests: 'test/vscode/measure/**/*.test.ts',
    workspace: 'samples/workspace',
    prepare: prepareMeasure,
    settings: {
      'security.workspace.trust.enabled': false,
      'workspaceMemory.storePath': '.bench/store-10k',
      'workspaceMemory.userId': 'bench',
      'workspaceMemory.docSync.enabled': false,
    },
  },
  {
    name: 'restricted',
    tests: 'test/vscode/restricted/**/*.test.ts',
    workspace: 'samples/workspace',
    settings: {
      'security.workspace.trust.enabled': true,
      'security.workspace.trust.startupPrompt': 'never',
      'security.workspace.trust.banner': 'never',
      'security.workspace.trust.emptyWindow': false,
      'security.workspace.trust.untrustedFiles': 'open',
    },
  },
  {
    // Workspace Memory as a user gets it: `npm run package`, then VS Code's
    // --install-extension into the run's extensions folder. VS Code runs
    // extension tests only with an extension under development, so that is an
    // empty runner extension, and the tests drive the installed copy. Last, as
    // packaging rebuilds dist/ for production (vscode:prepublish).
    name: 'installed',
    tests: 'test/vscode/installed/**/*.test.ts',
    workspace: 'samples/workspace',
    developmentPath: 'test/vscode/fixtures/installed-runner',
    prepare: prepareInstalled,
    settings: {
      'security.workspace.trust.enabled': false,
      // So that VS Code is offered the MCP server definition, as a user who asks for it.
      'workspaceMemory.mcp.offerInVsCode': true,
    },
  },
];

/** Settings every run shares: a quiet, predictable workbench for screenshots. */
export const COMMON_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'git.enabled': false,
  'window.commandCenter': true,
};
