import { isMap, LineCounter, parseDocument } from 'yaml';

/**
 * YAML front matter of rule files (Cursor's `globs`, Copilot's `applyTo`,
 * Windsurf's `trigger`, Claude's `paths`), read with the `yaml` package as
 * the team folder's files are, but with messages about rule files: a
 * problem names the line, and the file is then not imported at all (its
 * globs would be lost, and the rule would apply everywhere).
 */

export interface FrontMatterRead {
  data: Record<string, unknown>;
  /** How many lines the front matter takes, fences included: the body starts after them. */
  lines: number;
}

export class FrontMatterProblem extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

const FENCE = /^---[ \t]*$/;

/**
 * The front matter at the top of `text`, or undefined when there is none (no
 * `---` first line, or no closing `---`: then the first line is a thematic
 * break). Throws FrontMatterProblem for YAML that does not parse or is not
 * `field: value` lines.
 */
export function readFrontMatter(text: string): FrontMatterRead | undefined {
  const lines = text.split('\n');
  if (!FENCE.test(lines[0] ?? '')) return undefined;
  const close = lines.findIndex((line, index) => index > 0 && FENCE.test(line));
  if (close === -1) return undefined;
  const yaml = lines.slice(1, close);
  try {
    return { data: yamlFields(yaml.join('\n')), lines: close + 1 };
  } catch (error) {
    if (!(error instanceof FrontMatterProblem)) throw error;
    // Cursor and Windsurf write globs unquoted; what YAML refuses may still be their plain fields.
    const plain = plainFields(yaml);
    if (plain) return { data: plain, lines: close + 1 };
    throw error;
  }
}

function yamlFields(yaml: string): Record<string, unknown> {
  const counter = new LineCounter();
  const doc = parseDocument(yaml, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  const error = doc.errors[0];
  if (error) {
    // The YAML's first line is the file's second.
    const line = (error.linePos?.[0].line ?? 1) + 1;
    const reason = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    throw new FrontMatterProblem(`The front matter is not valid YAML: ${reason} (line ${line}).`, line);
  }
  if (doc.contents !== null && !isMap(doc.contents)) {
    throw new FrontMatterProblem('The front matter must be "field: value" lines.', 2);
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (cause) {
    // An alias without its anchor (`globs: *.ts`), or too many aliases: the YAML parses but has no value.
    throw new FrontMatterProblem(`The front matter cannot be read: ${(cause as Error).message}.`, 2);
  }
  return (data ?? {}) as Record<string, unknown>;
}

const PLAIN_FIELD = /^([A-Za-z_][\w-]*):[ \t]*(.*)$/;

/**
 * Front matter as Cursor and Windsurf write it and read it themselves: one
 * `field: value` per line, values unquoted (`globs: *.ts`, which YAML takes
 * for an alias and refuses). Undefined unless every line is such a field.
 */
function plainFields(lines: readonly string[]): Record<string, unknown> | undefined {
  const data: Record<string, unknown> = {};
  for (const line of lines) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const field = PLAIN_FIELD.exec(line.trimEnd());
    if (!field) return undefined;
    const value = field[2]!.replace(/^(["'])(.*)\1$/, '$2');
    data[field[1]!] = value === 'true' ? true : value === 'false' ? false : value;
  }
  return data;
}

/** A front matter field as text: a string, or a number or boolean written bare; undefined otherwise. */
export function textField(data: Record<string, unknown>, key: string): string | undefined {
  const value = data[key];
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** Globs that match every file: a rule with them applies everywhere, which is what no `appliesTo` says. */
const EVERYWHERE = new Set(['**', '**/*']);

/**
 * Globs as rule files write them: a YAML list, or one string of globs
 * separated by commas (`**\/*.ts, **\/*.tsx`), where a comma inside braces
 * (`*.{ts,tsx}`) belongs to its glob. A leading `/` or `./` means the
 * workspace folder, as in those tools. Globs matching everything are dropped.
 */
export function globList(value: unknown): string[] {
  const raw = Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : typeof value === 'string'
      ? splitOutsideBraces(value)
      : [];
  const globs = raw.map((glob) => glob.trim().replace(/^\.?\/+/, '')).filter((glob) => glob !== '');
  return [...new Set(globs)].filter((glob) => !EVERYWHERE.has(glob));
}

function splitOutsideBraces(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '{' || char === '[') depth++;
    else if ((char === '}' || char === ']') && depth > 0) depth--;
    else if (char === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/**
 * Globs of a rule that lives in a sub-folder (a nested AGENTS.md, a
 * `packages/api/.cursor/rules` file) made workspace-relative: each is read
 * inside the folder; without any, the rule is about the whole folder.
 */
export function scopedGlobs(folder: string, globs: readonly string[]): string[] {
  if (folder === '') return [...globs];
  return globs.length === 0 ? [`${folder}/**`] : globs.map((glob) => `${folder}/${glob}`);
}
