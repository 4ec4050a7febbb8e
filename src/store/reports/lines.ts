/**
 * A report as one line of JSON, and back. A verbatim report (see NewReport) is written as
 * `{...its fields, "result": <its result text>, "request_chars": N, "request": <the body's text>}`
 * (with `"request_breaks"` before `request` when the text had line breaks); read back, its card is
 * `request.agent_card` (a batch's: `request.cards`) and `request_text` the body's text as it was
 * sent, line breaks included, so that a report page numbers the card's lines as the findings do. Lines stay strings until a flush
 * encodes a whole group at once: per-report buffers cost more (allocation, GC) than the one
 * encoding pass. Stores keep reports as these lines and parse one when it is read (parsing never
 * fails on nesting; encoding can).
 */
import { encodeRecord } from '../contract/encode.ts';
import type { NewReport, ReportRecord } from '../contract/report-records.ts';

/** JSON holds CR and LF only as whitespace between tokens (inside strings they are escaped): spaces keep it one line. */
const lineBreaks = /[\r\n]/g;
const oneLine = (json: string): string => (json.includes('\n') || json.includes('\r') ? json.replace(lineBreaks, ' ') : json);

/**
 * Where oneLine put a space for a line break, to put it back: per break, its distance from the
 * previous one and `n` (LF) or `r` (CR). A few bytes per line of the text; nothing for a one-line body.
 */
const breaksOf = (json: string): string => {
  let breaks = '';
  let previous = 0;
  for (const m of json.matchAll(lineBreaks)) {
    breaks += `${m.index - previous}${m[0] === '\n' ? 'n' : 'r'}`;
    previous = m.index;
  }
  return breaks;
};

/** The text with its line breaks put back: copied once into one buffer (a slice per line cost a GC pause per large report). */
const withBreaks = (oneLineJson: string, breaks: string): string => {
  const codes = new Uint16Array(oneLineJson.length);
  for (let i = 0; i < oneLineJson.length; i++) codes[i] = oneLineJson.charCodeAt(i);
  let at = 0;
  let distance = 0;
  for (let i = 0; i < breaks.length; i++) {
    const c = breaks.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) {
      distance = distance * 10 + c - 0x30;
      continue;
    }
    at += distance;
    distance = 0;
    if (at < codes.length) codes[at] = c === 0x6e /* n */ ? 0x0a : 0x0d;
  }
  return utf16.decode(codes);
};

const utf16 = new TextDecoder('utf-16le');

/** The report as one line of JSON (no newline at the end); throws UnstorableRecordError when it has none. */
export const reportLine = (report: NewReport): string => {
  if (!('requestJson' in report)) return encodeRecord(`report ${report.id}`, report);
  const { requestJson, resultJson, verdict: _verdict, ...fields } = report;
  const head = encodeRecord(`report ${report.id}`, fields); // `{...}`: result and request go in before its closing brace
  const breaks = breaksOf(requestJson);
  return `${head.slice(0, -1)},"result":${oneLine(resultJson)},"request_chars":${requestJson.length}${breaks ? `,"request_breaks":"${breaks}"` : ''},"request":${oneLine(requestJson)}}`;
};

type StoredReport = ReportRecord | (Omit<ReportRecord, 'card'> & { request: unknown; request_chars?: number; request_breaks?: string });

/** A parsed line as the ReportRecord it stands for (without `request_text`: only readLine has the line's text). */
export const fromLine = (value: StoredReport): ReportRecord => {
  if (!('request' in value)) return value;
  const { request, request_chars: _chars, request_breaks: _breaks, ...fields } = value;
  const body = typeof request === 'object' && request !== null ? (request as Record<string, unknown>) : {};
  const card = fields.kind === 'batch' ? body.cards : body.agent_card;
  return { ...fields, card };
};

/** A stored line as the ReportRecord it stands for; a report stored before `request_chars` has no `request_text`. */
export const readLine = (line: string): ReportRecord => {
  const value = JSON.parse(line) as StoredReport;
  const report = fromLine(value);
  if (!('request' in value) || typeof value.request_chars !== 'number') return report;
  // The request is the line's last member: its text ends just before the closing brace.
  const oneLineText = line.slice(line.length - 1 - value.request_chars, line.length - 1);
  return { ...report, request_text: value.request_breaks ? withBreaks(oneLineText, value.request_breaks) : oneLineText };
};
