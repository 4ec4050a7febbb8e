/**
 * Where the score chart of an agent's history puts its points: on a time axis (oldest on the
 * left, each report at its time), scores 0..100 bottom to
 * top, in the units of the SVG's viewBox, with the axis's labelled times and each point's hover
 * label (its time, verdict and score) placed to stay inside the chart. Imports nothing, so the
 * agent page (a string) and the dashboard (DOM nodes) draw the same chart from it. Times are UTC.
 */

/** The most points a chart draws: a history page holds at most this many reports. */
export const CHART_MAX_POINTS = 100;

export const CHART = { width: 640, height: 184, left: 34, right: 14, top: 12, bottom: 30 } as const;

/** A point's hover label: a box (its left edge, top and width) and the text's baseline. */
export interface ChartTip {
  text: string;
  x: number;
  y: number;
  width: number;
  textX: number;
  textY: number;
}

export interface ChartPoint {
  x: number;
  /** Null when the report has no score (its validation could not run): no dot, a gap in the line. */
  y: number | null;
  tip: ChartTip;
}

export interface ChartGeometry<T> {
  points: (ChartPoint & { item: T })[];
  /** The line through the scored points, one `points` attribute per run without a gap. */
  lines: string[];
  /** The y of each labelled score (0, 50, 100). */
  grid: { score: number; y: number }[];
  /** The time axis: where each labelled time sits and its label. */
  ticks: { x: number; label: string }[];
  /** The axis's line. */
  axisY: number;
}

/** What one item is to the chart. */
export interface ChartItem {
  score: number | null;
  /** ISO 8601. */
  at: string;
  valid: boolean;
}

const round = (n: number): number => Math.round(n * 10) / 10;

/** The y of a score, clamped to 0..100 (a score outside is drawn at the edge). */
const yOf = (score: number): number => {
  const plot = CHART.height - CHART.top - CHART.bottom;
  return round(CHART.top + plot * (1 - Math.min(100, Math.max(0, score)) / 100));
};

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY_MS = 86_400_000;
const day = (d: Date): string => `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
const clock = (d: Date): string => d.toISOString().slice(11, 16);

/** The axis's labels: days over a span of a day or more, else times of day (the first with its day). */
const tickLabel = (t: number, first: boolean, span: number): string => {
  const d = new Date(t);
  return span >= DAY_MS ? day(d) : first ? `${day(d)} ${clock(d)}` : clock(d);
};

/** Roughly how wide a label of 11-unit text is. */
const textWidth = (text: string): number => text.length * 6.1;

const tipOf = (x: number, y: number | null, text: string): ChartTip => {
  const width = round(textWidth(text) + 12);
  const left = Math.min(Math.max(CHART.left, x - width / 2), CHART.width - width);
  const top = y === null ? CHART.top : y - 30 < 0 ? y + 10 : y - 30;
  return { text, x: round(left), y: round(top), width, textX: round(left + 6), textY: round(top + 14) };
};

/** The chart of `items` (oldest first; only the newest CHART_MAX_POINTS are drawn). */
export const chartGeometry = <T>(items: readonly T[], describe: (item: T) => ChartItem): ChartGeometry<T> => {
  const drawn = items.slice(-CHART_MAX_POINTS).map((item) => ({ item, ...describe(item) }));
  const span = CHART.width - CHART.left - CHART.right;
  const times = drawn.map((d) => Date.parse(d.at)).map((t, i, all) => (Number.isFinite(t) ? t : (all[i - 1] ?? 0)));
  const first = Math.min(...times);
  const last = Math.max(...times);
  const duration = last - first;
  const xOfTime = (t: number): number => round(CHART.left + (duration > 0 ? ((t - first) / duration) * span : span / 2));
  const points = drawn.map(({ item, score, at, valid }, i) => {
    const x = xOfTime(times[i]!);
    const y = typeof score === 'number' && Number.isFinite(score) ? yOf(score) : null;
    const when = Number.isFinite(Date.parse(at)) ? `${day(new Date(at))} ${clock(new Date(at))} UTC` : at;
    return { item, x, y, tip: tipOf(x, y, `${when} · ${valid ? 'valid' : 'invalid'} · ${y === null ? 'no score' : `score ${score}`}`) };
  });
  const lines: string[] = [];
  let run: string[] = [];
  for (const p of [...points, { x: 0, y: null }]) {
    if (p.y !== null) {
      run.push(`${p.x},${p.y}`);
      continue;
    }
    if (run.length > 1) lines.push(run.join(' '));
    run = [];
  }
  const tickTimes = drawn.length === 0 ? [] : duration > 0 ? [0, 1, 2, 3].map((k) => first + (duration * k) / 3) : [first];
  const ticks = tickTimes.map((t, k) => ({ x: xOfTime(t), label: tickLabel(t, k === 0, duration) }));
  return { points, lines, grid: [0, 50, 100].map((s) => ({ score: s, y: yOf(s) })), ticks, axisY: CHART.height - CHART.bottom };
};
