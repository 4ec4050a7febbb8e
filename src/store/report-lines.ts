/**
 * A report as one line of JSON, and back. A report put with its request body verbatim
 * (`requestJson`, see NewReport) is written as `{...its fields, "request": <the body's bytes>}`;
 * read back, its card is `request.agent_card`.
 */
import type { NewReport, ReportRecord } from './types.ts';

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const CLOSE = Buffer.from('}');
const decoder = new TextDecoder(); // drops a leading BOM, as the request reader did

/**
 * The body's bytes on one line, as one JSON value: a leading BOM goes, and since JSON holds CR and LF
 * only as whitespace between tokens (inside strings they are escaped), each becomes a space.
 */
const oneLine = (json: Uint8Array): Uint8Array => {
  const bytes = json[0] === 0xef && json[1] === 0xbb && json[2] === 0xbf ? json.subarray(3) : json;
  if (bytes.indexOf(LF) < 0 && bytes.indexOf(CR) < 0) return bytes;
  const copy = Buffer.from(bytes);
  for (let i = 0; i < copy.length; i++) if (copy[i] === LF || copy[i] === CR) copy[i] = SPACE;
  return copy;
};

/** The report as one line of UTF-8 JSON (no newline at the end). */
export const reportLine = (report: NewReport): Buffer => {
  if (!('requestJson' in report)) return Buffer.from(JSON.stringify(report));
  const { requestJson, ...fields } = report;
  const head = JSON.stringify(fields); // `{...}`: the request goes in before its closing brace
  return Buffer.concat([Buffer.from(`${head.slice(0, -1)},"request":`), oneLine(requestJson), CLOSE]);
};

type StoredReport = ReportRecord | (Omit<ReportRecord, 'card'> & { request: unknown });

/** A parsed line as the ReportRecord it stands for. */
export const fromLine = (value: StoredReport): ReportRecord => {
  if (!('request' in value)) return value;
  const { request, ...fields } = value;
  const card = typeof request === 'object' && request !== null ? (request as Record<string, unknown>).agent_card : undefined;
  return { ...fields, card };
};

/** A report as put, as the ReportRecord it stands for (stores that keep objects). */
export const asRecord = (report: NewReport): ReportRecord => {
  if (!('requestJson' in report)) return report;
  const { requestJson, ...fields } = report;
  return fromLine({ ...fields, request: JSON.parse(decoder.decode(requestJson)) as unknown });
};
