import { casual, type ParsedResult } from 'chrono-node/en';

/*
 * When a question about a past conversation names a time ("last week", "in
 * March", "yesterday", "on 7 May 2023", "in 2022"), the span it means, to
 * narrow or order the turns by. The natural-language parsing is chrono's
 * (English); how wide a span a phrase means is decided here from what it
 * names: a day, a week, a month or a year.
 */

/** A span of time a query names: [from, to) in UTC ISO 8601, and the words that named it. */
export interface QueryTime {
  from: string;
  to: string;
  text: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** "in 2022", "during 2019": a bare year, which chrono leaves alone. */
const BARE_YEAR = /\b(?:in|during|of|since|from)\s+((?:19|20)\d{2})\b(?![-/:.]\d)/i;

/** The span of time `query` names, relative to `reference` (now, or a conversation's last day); none if it names none. */
export function timeInQuery(query: string, reference: Date): QueryTime | undefined {
  const [found] = casual.parse(query, reference, { forwardDate: false });
  if (found) return spanOf(found, reference);
  const year = BARE_YEAR.exec(query);
  if (!year) return undefined;
  const start = Date.UTC(Number(year[1]), 0, 1);
  return { from: iso(start), to: iso(Date.UTC(Number(year[1]) + 1, 0, 1)), text: year[0] };
}

/** A phrase's span: as wide as the finest part of a date it names for certain (a day, a month, a year). */
function spanOf(found: ParsedResult, reference: Date): QueryTime {
  const start = found.start.date();
  // A past conversation is asked about: "in March" in January is last March, not the coming one.
  if (!found.start.isCertain('year') && !found.end && start > reference)
    start.setUTCFullYear(start.getUTCFullYear() - 1);
  const text = found.text;
  if (found.end) return { from: iso(dayStart(start)), to: iso(dayStart(found.end.date()) + DAY_MS), text };
  if (/\bweeks?\b/i.test(text)) {
    // "last week": the week (Monday to Sunday) of the day chrono lands on.
    const monday = dayStart(start) - ((start.getUTCDay() + 6) % 7) * DAY_MS;
    return { from: iso(monday), to: iso(monday + 7 * DAY_MS), text };
  }
  const known = (part: 'day' | 'weekday' | 'month' | 'year') => found.start.isCertain(part);
  if (known('day') || known('weekday') || /\b(?:today|yesterday|tonight|morning|afternoon|evening|ago)\b/i.test(text)) {
    return { from: iso(dayStart(start)), to: iso(dayStart(start) + DAY_MS), text };
  }
  if (known('month') || /\bmonths?\b/i.test(text)) {
    const year = start.getUTCFullYear();
    const month = start.getUTCMonth();
    return { from: iso(Date.UTC(year, month, 1)), to: iso(Date.UTC(year, month + 1, 1)), text };
  }
  const year = start.getUTCFullYear();
  return { from: iso(Date.UTC(year, 0, 1)), to: iso(Date.UTC(year + 1, 0, 1)), text };
}

const dayStart = (date: Date): number => Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
const iso = (time: number): string => new Date(time).toISOString();

/** The query without the words that named its time: "last week" is when, not what, was said. */
export function withoutTime(query: string, time: QueryTime): string {
  return query.replace(time.text, ' ').replace(/\s+/g, ' ').trim();
}
