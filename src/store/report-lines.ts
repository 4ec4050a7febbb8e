/**
 * A report as one line of JSON, and back. A verbatim report (see NewReport) is written as
 * `{...its fields, "result": <its result text>, "request": <the body's text>}`; read back, its
 * card is `request.agent_card` (a batch's: `request.cards`). Lines stay strings until a flush
 * encodes a whole group at once: per-report buffers cost more (allocation, GC) than the one
 * encoding pass. Stores keep reports as these lines and parse one when it is read (parsing never
 * fails on nesting; encoding can).
 */
import { encodeRecord } from './encode.ts';
import type { NewReport, ReportRecord } from './types.ts';

/** JSON holds CR and LF only as whitespace between tokens (inside strings they are escaped): spaces keep it one line. */
const lineBreaks = /[\r\n]/g;
const oneLine = (json: string): string => (json.includes('\n') || json.includes('\r') ? json.replace(lineBreaks, ' ') : json);

/** The report as one line of JSON (no newline at the end); throws UnstorableRecordError when it has none. */
export const reportLine = (report: NewReport): string => {
  if (!('requestJson' in report)) return encodeRecord(`report ${report.id}`, report);
  const { requestJson, resultJson, verdict: _verdict, ...fields } = report;
  const head = encodeRecord(`report ${report.id}`, fields); // `{...}`: result and request go in before its closing brace
  return `${head.slice(0, -1)},"result":${oneLine(resultJson)},"request":${oneLine(requestJson)}}`;
};

type StoredReport = ReportRecord | (Omit<ReportRecord, 'card'> & { request: unknown });

/** A parsed line as the ReportRecord it stands for. */
export const fromLine = (value: StoredReport): ReportRecord => {
  if (!('request' in value)) return value;
  const { request, ...fields } = value;
  const body = typeof request === 'object' && request !== null ? (request as Record<string, unknown>) : {};
  const card = fields.kind === 'batch' ? body.cards : body.agent_card;
  return { ...fields, card };
};

/** A stored line as the ReportRecord it stands for. */
export const readLine = (line: string): ReportRecord => fromLine(JSON.parse(line) as StoredReport);
