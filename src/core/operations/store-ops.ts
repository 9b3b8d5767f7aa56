import { z } from 'zod';

import { ADMIN_SURFACES, defineOperation } from './types';

export const stats = defineOperation({
  name: 'stats',
  title: 'Store statistics',
  description:
    'Counts what the whole memory store holds (memories, skills, knowledge, sessions, profiles, objects, commits, snapshots) and its size on disk. Use it to report on the store. Returns one line per figure.',
  input: z.strictObject({}),
  effect: 'read',
  surfaces: ADMIN_SURFACES,
  async run({ store }) {
    const figures = await store.stats();
    const text = Object.entries(figures)
      .map(([key, value]) => `${key}: ${value}`)
      .join('\n');
    return { text, data: { ...figures } };
  },
});

const SHOWN_ERRORS = 20;

export const verify = defineOperation({
  name: 'verify',
  title: 'Verify the store',
  description:
    "Checks the whole store's integrity: recomputes every content and commit hash and walks every entity's history chain. Use it when the store may be damaged. Returns whether it is valid and the problems found.",
  input: z.strictObject({}),
  effect: 'read',
  surfaces: ADMIN_SURFACES,
  async run({ store }) {
    const report = await store.verify();
    const summary = `${report.valid ? 'Valid' : 'INVALID'}: ${report.totalEntities} entities, ${report.totalCommits} commits, ${report.totalObjects} objects, ${report.errors.length} problems.`;
    const problems = report.errors.slice(0, SHOWN_ERRORS).map((error) => `${error.code} ${error.id}: ${error.message}`);
    const more = report.errors.length > SHOWN_ERRORS ? [`… and ${report.errors.length - SHOWN_ERRORS} more.`] : [];
    return { text: [summary, ...problems, ...more].join('\n'), data: { ...report } };
  },
});

export const exportStore = defineOperation({
  name: 'export',
  title: 'Export the store',
  description:
    'Exports every live entity of the whole store (all agents and users) with its access counts as one portable JSON document, the format `workspace-memory import` reads. Use it for a backup or to move memory elsewhere. Returns the JSON document.',
  input: z.strictObject({}),
  effect: 'read',
  surfaces: ADMIN_SURFACES,
  async run({ store }) {
    const document = await store.export();
    // The document itself is the text: clients that only pass text on still get all of it.
    return { text: JSON.stringify(document), data: { ...document } };
  },
});

export const STORE_OPERATIONS = [stats, verify, exportStore];
