/**
 * Where the score chart of an agent's history puts its points: on a time axis (oldest on the
 * left, each report at its time), scores 0..100 bottom to
 * top, in the units of the SVG's viewBox, a line per branch (the default branch's first and
 * emphasised, then the most recently active others, at most MAX_LANES in all: the rest dots only),
 * the axis's labelled times (whole steps, no label twice, thinned on a phone) and each point's
 * hover label (its time, branch, verdict and score) placed to stay inside the chart. Imports
 * nothing, so the agent page (a string) and the dashboard (DOM nodes) draw the same chart from it.
 * Times are UTC.
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
  /** The index of its branch's lane in `lanes`; null for a branch beyond them (a dot, no line). */
  lane: number | null;
  tip: ChartTip;
}

/** A branch drawn as a line: its name, whether it is the default branch, its dash pattern (none: solid) and its reports drawn. */
export interface ChartLane {
  name: string;
  isDefault: boolean;
  dash: string | null;
  reports: number;
}

/** A labelled time of the axis: where it sits, its label and anchor, and whether a phone shows it too (`narrow`). */
export interface ChartTick {
  x: number;
  label: string;
  anchor: 'start' | 'middle' | 'end';
  narrow: boolean;
}

export interface ChartGeometry<T> {
  points: (ChartPoint & { item: T })[];
  /** The lines through each lane's scored points: one `points` attribute per run without a gap. */
  lines: { lane: number; points: string }[];
  /** The branches drawn as lines, the default branch's first. */
  lanes: ChartLane[];
  /** How many branches beyond `lanes` have reports here (drawn as dots only). */
  otherBranches: number;
  /** The y of each labelled score (0, 50, 100). */
  grid: { score: number; y: number }[];
  /** The time axis: where each labelled time sits and its label. */
  ticks: ChartTick[];
  /** The axis's line. */
  axisY: number;
}

/** What one item is to the chart. */
export interface ChartItem {
  score: number | null;
  /** ISO 8601. */
  at: string;
  valid: boolean;
  /** Its branch (a report that named none: the default branch). */
  branch: string;
}

/** The most branches drawn as lines, the default branch's included; the dash of each after the default's. */
export const MAX_LANES = 4;
const LANE_DASHES = ['7 4', '2 3', '10 3 2 3'] as const;

/**
 * A phone's chart is about half as wide as its viewBox: its time labels (the `axis-text` class) are
 * drawn larger there and only the `narrow` ticks labelled, so they stay legible; the scores (the
 * `axis-score` class) as large as fits left of the plot. For both stylesheets.
 */
export const CHART_NARROW = { maxWidth: 600, fontSize: 20, scoreFontSize: 15 } as const;
export const chartNarrowCss = `@media (max-width:${CHART_NARROW.maxWidth}px){.score-chart .axis-text{font-size:${CHART_NARROW.fontSize}px}.score-chart .axis-score{font-size:${CHART_NARROW.scoreFontSize}px}.score-chart .wide-only{display:none}}`;

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

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** The axis's steps, smallest first: whole minutes, hours and days. */
const STEPS = [1, 2, 5, 10, 15, 30].map((m) => m * MINUTE_MS).concat([1, 2, 3, 6, 12].map((h) => h * HOUR_MS), [1, 2, 7, 14, 30, 61, 91, 182, 365].map((d) => d * DAY_MS));
/** The most steps the axis spans (so at most one more label). */
const MAX_STEPS = 4;

/** Roughly how wide a label of 11-unit text is. */
const textWidth = (text: string, fontSize = 11): number => text.length * 6.1 * (fontSize / 11);

/**
 * The axis's times: whole steps (minutes, hours or days) from first to last, at most MAX_STEPS + 1;
 * days label a step of a day or more, else times of day, with the day where it changes (the
 * first's included), so no label repeats.
 */
const tickTimes = (first: number, last: number): { t: number; label: string }[] => {
  const duration = last - first;
  const step = STEPS.find((s) => Math.floor(duration / s) <= MAX_STEPS) ?? STEPS[STEPS.length - 1]!;
  // Days from the first's midnight; shorter steps from the hour (UTC).
  const origin = step >= DAY_MS ? Math.ceil(first / DAY_MS) * DAY_MS : Math.ceil(first / step) * step;
  const times: number[] = [];
  for (let t = origin; t <= last && times.length <= MAX_STEPS; t += step) times.push(t);
  if (times.length < 2) times.splice(0, times.length, ...(duration > 0 ? [first, last] : [first]));
  // One label a minute (a day, for steps of days): reports seconds apart get one.
  const byDay = step >= DAY_MS && duration > 0;
  const keyOf = (t: number): string => (byDay ? day(new Date(t)) : `${day(new Date(t))} ${clock(new Date(t))}`);
  const distinct = times.filter((t, i) => times.findIndex((o) => keyOf(o) === keyOf(t)) === i);
  return distinct.map((t, i) => {
    const d = new Date(t);
    const newDay = i === 0 || day(d) !== day(new Date(distinct[i - 1]!));
    return { t, label: byDay ? day(d) : newDay ? `${day(d)} ${clock(d)}` : clock(d) };
  });
};

/**
 * Each tick's anchor (inside the chart at the phone's size) and whether it is labelled on a phone:
 * a label shows there only when it clears the one before by a gap.
 */
const placeTicks = (ticks: readonly { x: number; label: string }[]): ChartTick[] => {
  const extent = (x: number, width: number, anchor: ChartTick['anchor']) => (anchor === 'start' ? [x, x + width] : anchor === 'end' ? [x - width, x] : [x - width / 2, x + width / 2]) as [number, number];
  let lastEnd = -Infinity;
  return ticks.map(({ x, label }) => {
    const width = textWidth(label, CHART_NARROW.fontSize);
    const anchor = x - width / 2 < 2 ? 'start' : x + width / 2 > CHART.width - 2 ? 'end' : 'middle';
    const [from, to] = extent(x, width, anchor);
    const narrow = from >= lastEnd + 12;
    if (narrow) lastEnd = to;
    return { x, label, anchor, narrow };
  });
};

const tipOf = (x: number, y: number | null, text: string): ChartTip => {
  const width = round(textWidth(text) + 12);
  const left = Math.min(Math.max(CHART.left, x - width / 2), CHART.width - width);
  const top = y === null ? CHART.top : y - 30 < 0 ? y + 10 : y - 30;
  return { text, x: round(left), y: round(top), width, textX: round(left + 6), textY: round(top + 14) };
};

/** The branches as lanes: the default branch's first, then the others by their newest report, MAX_LANES in all; and how many were left out. */
const lanesOf = (drawn: readonly { branch: string }[], defaultBranch: string | undefined): { lanes: ChartLane[]; otherBranches: number } => {
  const newestFirst = [...new Set(drawn.map((d) => d.branch).reverse())];
  const ordered = defaultBranch !== undefined && newestFirst.includes(defaultBranch) ? [defaultBranch, ...newestFirst.filter((b) => b !== defaultBranch)] : newestFirst;
  const shown = ordered.slice(0, MAX_LANES);
  let dashes = 0;
  const lanes = shown.map((name) => ({
    name,
    isDefault: name === defaultBranch,
    dash: name === defaultBranch ? null : LANE_DASHES[dashes++ % LANE_DASHES.length]!,
    reports: drawn.filter((d) => d.branch === name).length,
  }));
  return { lanes, otherBranches: ordered.length - shown.length };
};

/** The runs without a gap of each lane's scored points, as `points` attributes. */
const laneLines = (points: readonly ChartPoint[], laneCount: number): { lane: number; points: string }[] => {
  const lines: { lane: number; points: string }[] = [];
  for (let lane = 0; lane < laneCount; lane++) {
    let run: string[] = [];
    for (const p of [...points.filter((q) => q.lane === lane), { x: 0, y: null }]) {
      if (p.y !== null) {
        run.push(`${p.x},${p.y}`);
        continue;
      }
      if (run.length > 1) lines.push({ lane, points: run.join(' ') });
      run = [];
    }
  }
  return lines;
};

/** The chart of `items` (oldest first; only the newest CHART_MAX_POINTS are drawn), `defaultBranch`'s lane first. */
export const chartGeometry = <T>(items: readonly T[], describe: (item: T) => ChartItem, defaultBranch?: string): ChartGeometry<T> => {
  const drawn = items.slice(-CHART_MAX_POINTS).map((item) => ({ item, ...describe(item) }));
  const span = CHART.width - CHART.left - CHART.right;
  const times = drawn.map((d) => Date.parse(d.at)).map((t, i, all) => (Number.isFinite(t) ? t : (all[i - 1] ?? 0)));
  const first = Math.min(...times);
  const last = Math.max(...times);
  const duration = last - first;
  const xOfTime = (t: number): number => round(CHART.left + (duration > 0 ? ((t - first) / duration) * span : span / 2));
  const { lanes, otherBranches } = lanesOf(drawn, defaultBranch);
  const laneIndex = new Map(lanes.map((l, i) => [l.name, i]));
  const points = drawn.map(({ item, score, at, valid, branch }, i) => {
    const x = xOfTime(times[i]!);
    const y = typeof score === 'number' && Number.isFinite(score) ? yOf(score) : null;
    const when = Number.isFinite(Date.parse(at)) ? `${day(new Date(at))} ${clock(new Date(at))} UTC` : at;
    const onBranch = lanes.length > 1 || otherBranches > 0 ? ` · ${branch.length > 24 ? `${branch.slice(0, 23)}…` : branch}` : '';
    return { item, x, y, lane: laneIndex.get(branch) ?? null, tip: tipOf(x, y, `${when}${onBranch} · ${valid ? 'valid' : 'invalid'} · ${y === null ? 'no score' : `score ${score}`}`) };
  });
  const ticks = drawn.length === 0 ? [] : placeTicks(tickTimes(first, last).map(({ t, label }) => ({ x: xOfTime(t), label })));
  return { points, lines: laneLines(points, lanes.length), lanes, otherBranches, grid: [0, 50, 100].map((s) => ({ score: s, y: yOf(s) })), ticks, axisY: CHART.height - CHART.bottom };
};
