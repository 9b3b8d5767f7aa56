// LoCoMo evidence retrieval through the public library API (see the dataset's
// README): each conversation goes into a fresh store, so its questions see
// only its turns and word statistics are the conversation's own. A mode
// decides how a conversation is stored and searched; each returns, per
// question, the dia_ids of the turns found, best first.
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

import { median, mrr, recall } from './eval-metrics.mjs';

const require = createRequire(import.meta.url);
const { Memory } = require('../dist/core.js');

const AGENT = 'locomo';
/** Results asked for per question: the deepest cut-off reported. */
const DEPTH = 25;
const CUTOFFS = [1, 5, 10, 25];
const CATEGORIES = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop', 5: 'adversarial' };

/** Every dialog turn of a conversation, session by session, in order. */
function turnsOf(conversation) {
  return Object.keys(conversation)
    .filter((key) => /^session_\d+$/.test(key))
    .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)))
    .flatMap((key) => conversation[key]);
}

/** A turn as the memory saved for it. */
function turnContent(turn) {
  return `${turn.speaker}: ${turn.text}${turn.blip_caption ? ` [shared ${turn.blip_caption}]` : ''}`;
}

/**
 * The dia_ids of a question's evidence that are turns of the conversation:
 * entries may hold several ids ("D8:6; D9:17") or a stray colon ("D:8:6").
 */
function evidenceOf(qa, turnIds) {
  const ids = qa.evidence.flatMap((entry) => String(entry).split(/[;,\s]+/)).map((id) => id.replace(/^D:/, 'D'));
  return new Set(ids.filter((id) => turnIds.has(id)));
}

/** Mode "turns": every turn is a memory of its own; search sees neither sessions nor order. */
async function storeTurns(memory, conversation) {
  const turns = turnsOf(conversation);
  const saved = await memory.memories.saveMany(
    turns.map((turn) => ({ agentId: AGENT, input: { content: turnContent(turn) } })),
  );
  const diaIdOf = new Map(saved.map(([entity], i) => [entity.id, turns[i].dia_id]));
  return async (question, limit) =>
    (await memory.memories.search(AGENT, undefined, question, limit)).map((result) => diaIdOf.get(result.entity.id));
}

/** "1:56 pm on 8 May, 2023", a session's date in the data set, as ISO 8601 (UTC); undefined if it does not read. */
function sessionTime(text) {
  const match = /(\d+):(\d+)\s*(am|pm) on (\d+) (\w+),? (\d{4})/i.exec(text ?? '');
  if (!match) return undefined;
  const hour = (Number(match[1]) % 12) + (match[3].toLowerCase() === 'pm' ? 12 : 0);
  const time = new Date(`${match[5]} ${match[4]}, ${match[6]} ${String(hour).padStart(2, '0')}:${match[2]}:00 UTC`);
  return Number.isNaN(time.getTime()) ? undefined : time.toISOString();
}

/**
 * Mode "sessions": the conversation saved as what it is, its sessions with
 * their dates, each turn a message with its speaker's name; searched turn by
 * turn within the conversation (whose last day a time in a question is
 * relative to).
 */
async function storeSessions(memory, conversation) {
  const conversationId = 'locomo';
  const diaIdOf = new Map();
  const keys = Object.keys(conversation)
    .filter((key) => /^session_\d+$/.test(key))
    .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
  for (const key of keys) {
    const turns = conversation[key];
    const startedAt = sessionTime(conversation[`${key}_date_time`]);
    const [[session]] = await memory.sessions.saveMany([
      {
        agentId: AGENT,
        input: {
          conversationId,
          ...(startedAt ? { startedAt } : {}),
          messages: turns.map((turn) => ({
            role: turn.speaker === conversation.speaker_a ? 'user' : 'assistant',
            name: turn.speaker,
            content: `${turn.text}${turn.blip_caption ? ` [shared ${turn.blip_caption}]` : ''}`,
          })),
        },
      },
    ]);
    turns.forEach((turn, index) => diaIdOf.set(`${session.id}#${index}`, turn.dia_id));
  }
  return async (question, limit) =>
    (await memory.sessions.search(AGENT, undefined, question, limit, { conversationId })).map((hit) =>
      diaIdOf.get(`${hit.session.id}#${hit.turn.index}`),
    );
}

/**
 * How a conversation is stored and searched, by mode name: each takes a fresh
 * store and the conversation, and returns the search, from a question and a
 * result count to the dia_ids found, best first.
 */
export const LOCOMO_MODES = { turns: storeTurns, sessions: storeSessions };

/** Sums of each metric over a group of questions. */
class Totals {
  n = 0;
  sums = Object.fromEntries([...CUTOFFS.map((k) => `R@${k}`), 'MRR@10'].map((name) => [name, 0]));

  add(ranked, relevant) {
    this.n++;
    for (const k of CUTOFFS) this.sums[`R@${k}`] += recall(ranked, relevant, k);
    this.sums['MRR@10'] += mrr(ranked, relevant, 10);
  }

  means() {
    return Object.fromEntries(Object.entries(this.sums).map(([name, sum]) => [name, this.n ? sum / this.n : 0]));
  }
}

async function evaluateConversation(sample, storeMode, options, record) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-locomo-'));
  const memory = await Memory.open({ dir, ...options.memory });
  try {
    const turns = turnsOf(sample.conversation);
    const turnIds = new Set(turns.map((turn) => turn.dia_id));
    const search = await storeMode(memory, sample.conversation);
    for (const qa of sample.qa) {
      const relevant = evidenceOf(qa, turnIds);
      if (relevant.size === 0) continue;
      const start = performance.now();
      const ranked = await search(qa.question, DEPTH);
      record({ sample: sample.sample_id, category: qa.category, ranked, relevant, ms: performance.now() - start });
    }
    return turns.length;
  } finally {
    await memory.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Evidence recall@1/5/10/25 and MRR@10 over the questions with evidence,
 * overall, per category and per conversation.
 */
export async function evaluateLocomo(file, mode = 'turns', options = {}) {
  const storeMode = LOCOMO_MODES[mode];
  if (!storeMode) throw new Error(`Unknown LoCoMo mode "${mode}" (${Object.keys(LOCOMO_MODES).join(', ')}).`);
  const samples = JSON.parse(fs.readFileSync(file, 'utf8'));
  const overall = new Totals();
  const groups = new Map();
  const times = [];
  const totalsOf = (name) => groups.get(name) ?? groups.set(name, new Totals()).get(name);
  const record = ({ sample, category, ranked, relevant, ms }) => {
    times.push(ms);
    for (const totals of [overall, totalsOf(`cat ${category} ${CATEGORIES[category]}`), totalsOf(sample)]) {
      totals.add(ranked, relevant);
    }
  };
  let turns = 0;
  for (const sample of samples) turns += await evaluateConversation(sample, storeMode, options, record);
  const table = { overall, ...Object.fromEntries([...groups].sort(([a], [b]) => a.localeCompare(b))) };
  return {
    mode,
    turns,
    questions: overall.n,
    searchP50Ms: median(times),
    rows: Object.fromEntries(Object.entries(table).map(([name, totals]) => [name, { n: totals.n, ...totals.means() }])),
  };
}

export function printLocomo(result) {
  console.log(`mode ${result.mode}: ${result.turns} turns, ${result.questions} questions`);
  console.log(`searchP50Ms ${result.searchP50Ms.toFixed(2)}`);
  const [first] = Object.values(result.rows);
  const names = Object.keys(first).filter((name) => name !== 'n');
  console.log(['group'.padEnd(24), 'n'.padStart(4), ...names.map((name) => name.padStart(7))].join(' '));
  for (const [group, row] of Object.entries(result.rows)) {
    const cells = names.map((name) => row[name].toFixed(4).padStart(7));
    console.log([group.padEnd(24), String(row.n).padStart(4), ...cells].join(' '));
  }
}
