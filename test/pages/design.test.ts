/**
 * The one look's colours: every text colour on every background the stylesheets draw it on is at
 * least 4.5:1, in light and in dark, computed from the CSS variables as the pages and the dashboard
 * are given them (read back out of the stylesheets' text, not from the palettes' objects); both
 * stylesheets start with the same variables, and the favicon is the headers' mark.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dashboardStyles } from '../../src/dashboard/styles.ts';
import { COLOUR_NAMES, designTokens, logoMark, markSvg, TEXT_ON } from '../../src/pages/design.ts';
import { faviconSvg } from '../../src/pages/favicon.ts';
import { renderNotFoundPage } from '../../src/pages/layout.ts';
import { contrast } from './contrast.ts';

/** The variables of the `:root` rule at `at` in the CSS text: name to value. */
const variablesAt = (css: string, at: number): Map<string, string> => {
  const body = css.slice(css.indexOf('{', css.indexOf(':root', at)) + 1, css.indexOf('}', css.indexOf(':root', at)));
  return new Map(body.split(';').map((d) => d.split(':')).filter((d) => d.length >= 2 && d[0]!.startsWith('--')).map(([name, ...value]) => [name!.slice(2), value.join(':')]));
};

/** The light scheme (the first :root) and the dark one (the :root inside the prefers-color-scheme rule). */
const schemes = (css: string) => ({ light: variablesAt(css, 0), dark: variablesAt(css, css.indexOf('prefers-color-scheme:dark')) });

describe('the design tokens', () => {
  const { light, dark } = schemes(designTokens);

  for (const [scheme, colours] of [['light', light], ['dark', dark]] as const) {
    it(`${scheme}: every colour is set, and every text is at least 4.5:1 on every background it is drawn on`, () => {
      for (const name of COLOUR_NAMES) assert.match(colours.get(name) ?? '', /^#[0-9a-f]{6}$/, `--${name}`);
      const low: string[] = [];
      let pairs = 0;
      for (const [text, backgrounds] of TEXT_ON) {
        for (const background of backgrounds) {
          pairs++;
          const ratio = contrast(colours.get(text)!, colours.get(background)!);
          if (ratio < 4.5) low.push(`--${text} on --${background}: ${ratio.toFixed(2)}`);
        }
      }
      assert.ok(pairs >= 30, `${pairs} pairs checked`);
      assert.deepEqual(low, []);
    });
  }

  it('the dashboard\'s stylesheet and every page start with the same variables and draw with no colour of their own', () => {
    assert.ok(dashboardStyles.startsWith(designTokens));
    const page = renderNotFoundPage('Report', 'No such report.');
    assert.ok(page.includes(`<style>${designTokens}`));
    const dashboardOwn = dashboardStyles.slice(designTokens.length);
    const pageOwn = page.slice(page.indexOf(designTokens) + designTokens.length, page.indexOf('</style>'));
    // Print styles set their own (black on white); screen styles take every colour from the variables.
    for (const [what, css] of [['dashboard', dashboardOwn], ['pages', pageOwn.slice(0, pageOwn.indexOf('@media print'))]] as const) {
      assert.deepEqual(css.match(/#[0-9a-f]{3,8}\b/gi) ?? [], [], `${what}: no colour literal`);
    }
  });

  it('the favicon is the headers\' logo mark', () => {
    assert.equal(faviconSvg, markSvg);
    const check = /<path d="([^"]+)"/;
    assert.equal(check.exec(logoMark)![1], check.exec(markSvg)![1]);
    assert.ok(renderNotFoundPage('Report', 'x').includes(logoMark));
  });
});
