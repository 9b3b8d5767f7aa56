import { casual, type ParsedResult } from 'chrono-node/en';

/*
 * When a question about a past conversation names a time ("last week", "in
 * March", "yesterday", "on 7 May 2023", "since 2022", "between March and
 * May"), the span it means, to put the turns said then first. The parsing of
 * dates in English is chrono's; what is kept of it, and how wide a span a
 * phrase means (a day, a week from Monday, a month, a year), is decided here.
 * Days are the asker's: spans start at local midnight.
 */

/** A span of time a query names: [from, to) as UTC ISO 8601, and the words that named it. */
export interface QueryTime {
  from: string;
  to: string;
  text: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** "in 2022", "during 2019", "since 2021": a bare year, which chrono leaves alone. */
const BARE_YEAR = /\b(in|during|of|since|from)\s+((?:19|20)\d{2})\b(?![-/:.]\d)/i;

/** One word chrono reads as a date that is usually not one here: "march on", "wed", "sun", "now". */
const RELATIVE_DAYS = new Set(['today', 'yesterday', 'tonight']);

type Unit = 'day' | 'week' | 'month' | 'year';

/** The span of time `query` names, relative to `reference` (now, or a conversation's last turn); none if it names none. */
export function timeInQuery(query: string, reference: Date): QueryTime | undefined {
  const range = RANGE.exec(query);
  if (range) {
    const [start] = partSpan(range[1]!, reference) ?? [];
    const [, end] = partSpan(range[2]!, reference) ?? [];
    if (start !== undefined && end !== undefined && start < end)
      return { from: iso(start), to: iso(end), text: range[0].trim() };
  }
  const [first] = casual.parse(query, reference, { forwardDate: false }).filter(namesADate);
  if (first) {
    const [start, end] = spanOf(first, reference);
    const since = /\bsince\s+$/i.exec(query.slice(0, first.index));
    if (since) return { from: iso(start), to: iso(endOfDay(reference)), text: `${since[0]}${first.text}` };
    return { from: iso(start), to: iso(end), text: first.text };
  }
  const year = BARE_YEAR.exec(query);
  if (!year) return undefined;
  const start = new Date(Number(year[2]), 0, 1).getTime();
  const end = year[1]!.toLowerCase() === 'since' ? endOfDay(reference) : new Date(Number(year[2]) + 1, 0, 1).getTime();
  return { from: iso(start), to: iso(end), text: year[0] };
}

/**
 * Whether chrono's reading is a date: not a time of day alone ("at 10:30"),
 * and not a lowercase word that is more often something else ("march on",
 * "wed", "sun is shining", "postgres now").
 */
function namesADate(found: ParsedResult): boolean {
  const certain = (part: 'day' | 'weekday' | 'month' | 'year') => found.start.isCertain(part);
  const words = found.text.trim().split(/\s+/);
  if (words.length === 1 && words[0] === words[0]!.toLowerCase() && !RELATIVE_DAYS.has(words[0])) {
    return /\d/.test(words[0]);
  }
  return (
    certain('day') ||
    certain('weekday') ||
    certain('month') ||
    certain('year') ||
    unitOf(found.text) !== undefined ||
    /\b(?:today|yesterday|tonight)\b/i.test(found.text)
  );
}

/** "between March and May", "from 2022 to 2023", "from May 1 until May 3": one span from the start of one to the end of the other. */
const RANGE =
  /\b(?:between|from)\s+(.{1,40}?)\s+(?:and|to|until|till|through)\s+(.{1,40}?)(?=[?.!,;]|\s+(?:what|when|who|did|do|we|i)\b|$)/i;

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** The span one end of a range names: a year, a month name alone (the last one by the reference), or what chrono reads. */
function partSpan(text: string, reference: Date): [number, number] | undefined {
  const words = text.trim();
  if (/^(?:19|20)\d{2}$/.test(words))
    return [new Date(Number(words), 0, 1).getTime(), new Date(Number(words) + 1, 0, 1).getTime()];
  const month = MONTHS.indexOf(words.toLowerCase());
  if (month >= 0) {
    const year = reference.getFullYear() - (month > reference.getMonth() ? 1 : 0);
    return [new Date(year, month, 1).getTime(), new Date(year, month + 1, 1).getTime()];
  }
  const [found] = casual.parse(words, reference, { forwardDate: false }).filter(namesADate);
  return found && spanOf(found, reference);
}

/** The unit a phrase counts in, when it names one ("two months ago", "last week", "a year ago"). */
function unitOf(text: string): Unit | undefined {
  const unit = /\b(day|week|month|year)s?\b/i.exec(text)?.[1]?.toLowerCase();
  return unit as Unit | undefined;
}

/** [start, end) in milliseconds of what one reading names, as wide as its finest certain part. */
function spanOf(found: ParsedResult, reference: Date): [number, number] {
  if (found.end) return [startOfDay(found.start.date()), endOfDay(found.end.date())];
  const date = found.start.date();
  const certain = (part: 'day' | 'weekday' | 'month' | 'year') => found.start.isCertain(part);
  // A past conversation is asked about: a date named without its year, or a weekday, that lands after
  // the reference is the one before it ("in March" in January is last March, "on Saturday" last Saturday).
  if (!certain('year') && date > reference) {
    if (certain('weekday') && !certain('day')) date.setDate(date.getDate() - 7);
    else date.setFullYear(date.getFullYear() - 1);
  }
  const unit =
    unitOf(found.text) ??
    (certain('day') || certain('weekday') ? 'day' : certain('month') ? 'month' : certain('year') ? 'year' : 'day');
  if (unit === 'week') {
    // "this week" is the reference's; chrono lands "last week" and "2 weeks ago" on a day of the week meant.
    const day = /\bthis week\b/i.test(found.text) ? reference : date;
    const monday = new Date(day.getFullYear(), day.getMonth(), day.getDate() - ((day.getDay() + 6) % 7));
    return [monday.getTime(), new Date(monday.getFullYear(), monday.getMonth(), monday.getDate() + 7).getTime()];
  }
  if (unit === 'month') {
    return [
      new Date(date.getFullYear(), date.getMonth(), 1).getTime(),
      new Date(date.getFullYear(), date.getMonth() + 1, 1).getTime(),
    ];
  }
  if (unit === 'year')
    return [new Date(date.getFullYear(), 0, 1).getTime(), new Date(date.getFullYear() + 1, 0, 1).getTime()];
  return [startOfDay(date), endOfDay(date)];
}

const startOfDay = (date: Date): number => new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
const endOfDay = (date: Date): number => startOfDay(date) + DAY_MS;
const iso = (time: number): string => new Date(time).toISOString();

/** The query without the words that named its time: "last week" is when, not what, was said. */
export function withoutTime(query: string, time: QueryTime): string {
  return query.replace(time.text, ' ').replace(/\s+/g, ' ').trim();
}
