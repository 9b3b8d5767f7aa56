import { z } from 'zod';

import { MEMORY_CATEGORIES, type SessionEntity, SKILL_CATEGORIES } from '../types';
import { tagListSchema } from './tags';

/**
 * The lines of project files an item is about, as the model names them. Only
 * the shape is checked here: whether the file and its lines exist is the
 * store's check when the item is written, and a citation failing it is
 * dropped there (mining.ts), never the item nor the whole answer.
 */
const citationListSchema = z
  .array(z.object({ path: z.string().trim().min(1), startLine: z.number(), endLine: z.number() }))
  .default([]);

/** What the model must return for each piece of a session. */
export const miningSchema = z.object({
  memories: z
    .array(
      z.object({
        content: z.string().trim().min(1),
        category: z.enum(MEMORY_CATEGORIES).default('fact'),
        tags: tagListSchema,
        citations: citationListSchema,
      }),
    )
    .default([]),
  skills: z
    .array(
      z.object({
        content: z.string().trim().min(1),
        category: z.enum(SKILL_CATEGORIES).default('procedure'),
        tags: tagListSchema,
        citations: citationListSchema,
      }),
    )
    .default([]),
  profile: z.array(z.string().trim().min(1)).default([]),
});

export type MiningAnswer = z.output<typeof miningSchema>;

export const MINING_INSTRUCTIONS = `You read a conversation between a user and an AI assistant working in a software project, and extract what is worth remembering in later conversations.

- memories: self-contained statements about the project, each understandable without the conversation. Categories: "fact" (how things are), "decision" (a choice that was made, with its reason), "issue" (a known problem or bug), "task" (work still to do), "correction" (a mistake that was corrected: state the right version).
- skills: reusable know-how, written as steps someone can follow. Categories: "procedure" (how to do something), "configuration" (how something is set up), "troubleshooting" (how a problem is diagnosed and fixed), "workflow" (how the team works).
- profile: short facts about the user themselves (role, expertise, preferences, habits), not about the project.
- citations (optional, for a memory or a skill about specific lines of a project file): the file's path relative to the workspace, with / separators (led by the folder's name in a workspace of several folders), and the first and last line it is about (1-based, inclusive). Cite only files and lines that appear in the conversation (a path with line numbers, quoted code whose place was given); never guess a path or line numbers: leave citations out instead.

Rules: keep only what stays useful beyond this conversation; leave out small talk, guesses and anything that was later contradicted; never include secrets (passwords, API keys, tokens); give each item two to five short lowercase tags; write in the language of the conversation. Return empty lists when nothing qualifies.`;

export const MINING_FORMAT = `{
  "memories": [{ "content": "We deploy the API with docker compose on the staging host.", "category": "decision", "tags": ["deploy", "docker"], "citations": [{ "path": "deploy/compose.yml", "startLine": 3, "endLine": 12 }] }],
  "skills": [{ "content": "To release: 1. run npm test 2. bump the version 3. push the tag.", "category": "procedure", "tags": ["release"] }],
  "profile": ["Prefers TypeScript over JavaScript"]
}`;

/**
 * The session as text units a transcript is packed from: one per message
 * (role and time first) or, for a plain-text session, one per paragraph.
 */
export function transcriptUnits(session: SessionEntity): string[] {
  if (session.messages?.length) {
    return session.messages.map(
      (message) => `${message.role}${message.timestamp ? ` (${message.timestamp})` : ''}: ${message.content.trim()}`,
    );
  }
  return session.content
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean);
}

/** The user message for one piece of a session. */
export function miningInput(piece: string, part: number, parts: number): string {
  const header = parts > 1 ? `Conversation, part ${part} of ${parts}:` : 'Conversation:';
  return `${header}\n\n${piece}`;
}

/** Room left in every request for the header `miningInput` adds. */
export const MINING_INPUT_OVERHEAD = 64;
