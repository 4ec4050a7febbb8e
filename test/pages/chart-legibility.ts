/**
 * What a reader sees of a score chart (the agent page's and the dashboard's): the time labels
 * shown, each with its size as drawn (its font size times the chart's scale) and its box; the
 * legend's entries. Plain JavaScript text: the test's own code is transpiled with helpers the page
 * does not have.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

interface ChartSeen {
  times: Array<{ text: string; px: number; left: number; right: number }>;
  chart: { left: number; right: number };
  lines: number;
  legend: string[];
}

const chartSeenScript = `(() => {
  const chart = document.querySelector('svg.score-chart[role="img"]');
  const box = chart.getBoundingClientRect();
  const scale = box.width / chart.viewBox.baseVal.width;
  // The time labels sit under the axis: the lowest row of the chart's texts.
  const texts = [...chart.querySelectorAll('text.axis-text')].filter((t) => getComputedStyle(t).display !== 'none');
  const lowest = Math.max(...texts.map((t) => Number(t.getAttribute('y'))));
  const times = texts.filter((t) => Number(t.getAttribute('y')) === lowest).map((t) => {
    const r = t.getBoundingClientRect();
    return { text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * scale, left: r.left, right: r.right };
  });
  const legend = [...document.querySelectorAll('.chart-legend li')].map((li) => li.textContent.trim());
  return { times, chart: { left: box.left, right: box.right }, lines: chart.querySelectorAll('polyline').length, legend };
})()`;

/** The chart as seen, checked: its time labels drawn at 9.5 px or more, inside the chart, none twice, none overlapping another. */
export const legibleChart = async (page: Page, where: string): Promise<ChartSeen> => {
  const seen = (await page.evaluate(chartSeenScript)) as ChartSeen;
  assert.ok(seen.times.length >= 1, `${where}: a time label`);
  const labels = seen.times.map((t) => t.text);
  assert.equal(new Set(labels).size, labels.length, `${where}: no label twice: ${labels}`);
  for (const [i, t] of seen.times.entries()) {
    assert.ok(t.px >= 9.5, `${where}: "${t.text}" drawn at ${t.px.toFixed(1)} px`);
    assert.ok(t.left >= seen.chart.left - 1 && t.right <= seen.chart.right + 1, `${where}: "${t.text}" inside the chart`);
    if (i > 0) assert.ok(t.left > seen.times[i - 1]!.right, `${where}: "${t.text}" overlaps "${seen.times[i - 1]!.text}"`);
  }
  return seen;
};
