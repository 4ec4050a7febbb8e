/** A report as it is put and read back (its listing columns are declared in reports/columns.ts). */

export type ReportKind = 'single' | 'batch' | 'webhook' | 'github';

export interface ReportRecord {
  /** rpt_… / batch_… / val_… / gh_… */
  id: string;
  kind: ReportKind;
  created_at: string;
  account_id: string | null;
  /**
   * Second lookup name (GitHub: the sha). A later report with the same alias takes it over only
   * when it has the same `alias_scope`; otherwise it is stored without the alias (see putReport).
   */
  alias?: string;
  /** Who may move the alias (GitHub: the repository, lower-cased); compared exactly, absent = absent. */
  alias_scope?: string;
  /** Protocol version validated against (batch: absent). */
  version?: string;
  /** The card (single, webhook, github) or the cards `[{id, agent_card}]` (batch). */
  card: unknown;
  /** The result body returned to the caller. */
  result: unknown;
  /** Extra context shown on the report page (webhook metadata, GitHub repo/sha). */
  meta?: Record<string, unknown>;
  /**
   * Read back only: the request body's text as it was sent (line breaks included), where the card's
   * own text is (its findings' lines count in it); absent for reports stored before it was kept.
   */
  request_text?: string;
}

/**
 * What putReport takes: a ReportRecord, or one already in text (a validation whose body and
 * result exist as JSON text once validated): stored verbatim instead of serialized again, a
 * hot-path cost. Read back, it is the ReportRecord with `card` = `agent_card` of the request
 * (a batch's: `cards`).
 */
export type NewReport = ReportRecord | VerbatimReport;

export interface VerbatimReport extends Omit<ReportRecord, 'card' | 'result'> {
  /** The request body's text: a JSON object with the card at `agent_card` (a batch: the cards at `cards`), already parsed once. */
  requestJson: string;
  /** The result's JSON text. */
  resultJson: string;
  /** What the report listing reads off the result (and the card: its name; a batch has none). */
  verdict: { valid: boolean; score: number; agent_name?: string | null; errors?: number };
}
