/**
 * Where the score chart of an agent's history puts its points: one slot per report, oldest on the
 * left, scores 0..100 bottom to top, in the units of the SVG's viewBox. Imports nothing, so the
 * agent page (a string) and the dashboard (DOM nodes) draw the same chart from it.
 */

/** The most points a chart draws: a history page holds at most this many reports. */
export const CHART_MAX_POINTS = 100;

export const CHART = { width: 640, height: 160, left: 34, right: 10, top: 10, bottom: 10 } as const;

export interface ChartPoint {
  x: number;
  /** Null when the report has no score (its validation could not run): no dot, a gap in the line. */
  y: number | null;
}

export interface ChartGeometry<T> {
  points: (ChartPoint & { item: T })[];
  /** The line through the scored points, one `points` attribute per run without a gap. */
  lines: string[];
  /** The y of each labelled score (0, 50, 100). */
  grid: { score: number; y: number }[];
}

const round = (n: number): number => Math.round(n * 10) / 10;

/** The y of a score, clamped to 0..100 (a score outside is drawn at the edge). */
const yOf = (score: number): number => {
  const plot = CHART.height - CHART.top - CHART.bottom;
  return round(CHART.top + plot * (1 - Math.min(100, Math.max(0, score)) / 100));
};

/** The chart of `items` (oldest first; only the newest CHART_MAX_POINTS are drawn), each scored by `score`. */
export const chartGeometry = <T>(items: readonly T[], score: (item: T) => number | null): ChartGeometry<T> => {
  const drawn = items.slice(-CHART_MAX_POINTS);
  const span = CHART.width - CHART.left - CHART.right;
  const step = drawn.length > 1 ? span / (drawn.length - 1) : 0;
  const points = drawn.map((item, i) => {
    const s = score(item);
    return { item, x: round(CHART.left + (drawn.length > 1 ? i * step : span / 2)), y: typeof s === 'number' && Number.isFinite(s) ? yOf(s) : null };
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
  return { points, lines, grid: [0, 50, 100].map((s) => ({ score: s, y: yOf(s) })) };
};
