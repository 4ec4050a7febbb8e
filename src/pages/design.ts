/**
 * The one look of the public pages and the dashboard: the colours (light and dark), the type
 * scale, the spacing steps and the corner radius as CSS variables, and the logo mark (the
 * favicon's). Both stylesheets start with `designTokens` and use nothing but these variables, so a
 * colour is changed here once; test/pages/design.test.ts computes every text colour's contrast on
 * every background it is drawn on from this text, in both schemes.
 */

/** The colours of one scheme, by variable name (without the leading `--`). */
export type Palette = Record<(typeof COLOUR_NAMES)[number], string>;

export const COLOUR_NAMES = [
  'fg', 'muted', 'bg', 'surface', 'panel', 'line', 'link', 'on-link', 'ok', 'bad', 'warn', 'on-badge',
  'ok-bg', 'bad-bg', 'warn-bg', 'target', 'focus', 'bar-zero',
] as const;

export const LIGHT: Palette = {
  fg: '#1f2328', muted: '#59636e', bg: '#ffffff', surface: '#ffffff', panel: '#f6f8fa', line: '#d1d9e0', link: '#0960cc', 'on-link': '#ffffff',
  ok: '#1a7f37', bad: '#cf222e', warn: '#8a5c00', 'on-badge': '#ffffff', 'ok-bg': '#dafbe1', 'bad-bg': '#ffebe9', 'warn-bg': '#fff8c5',
  target: '#ddf4ff', focus: '#bf8700', 'bar-zero': '#c8d1da',
};

export const DARK: Palette = {
  fg: '#e6edf3', muted: '#9198a1', bg: '#0d1117', surface: '#0d1117', panel: '#151b23', line: '#3d444d', link: '#58a6ff', 'on-link': '#0d1117',
  ok: '#3fb950', bad: '#ff7b72', warn: '#d29922', 'on-badge': '#0d1117', 'ok-bg': '#12301c', 'bad-bg': '#3c1618', 'warn-bg': '#362a0b',
  target: '#0a2450', focus: '#e3b341', 'bar-zero': '#3d444d',
};

/**
 * Which text colour is drawn on which background, each pair at least 4.5:1 (WCAG AA for body
 * text): what the stylesheets put together, listed for the contrast test.
 */
export const TEXT_ON: ReadonlyArray<[text: keyof Palette, backgrounds: ReadonlyArray<keyof Palette>]> = [
  ['fg', ['bg', 'surface', 'panel', 'ok-bg', 'bad-bg', 'warn-bg', 'target']],
  ['muted', ['bg', 'surface', 'panel']],
  ['link', ['bg', 'surface', 'panel', 'target']],
  ['on-link', ['link']],
  ['on-badge', ['ok', 'bad', 'warn', 'muted']],
  ['ok', ['bg', 'surface', 'panel', 'ok-bg']],
  ['bad', ['bg', 'surface', 'panel', 'bad-bg']],
  ['warn', ['bg', 'surface', 'panel']],
];

const variables = (palette: Palette): string => Object.entries(palette).map(([name, value]) => `--${name}:${value}`).join(';');

/** The type scale (px), the spacing steps and the radius, one set for every page. */
const SCALE = [
  '--text-xs:12px', '--text-sm:13px', '--text-md:15px', '--text-lg:18px', '--text-xl:20px', '--text-2xl:26px',
  '--space-1:4px', '--space-2:8px', '--space-3:12px', '--space-4:16px', '--space-5:24px', '--space-6:32px',
  '--radius:6px', '--radius-lg:10px',
  '--font-sans:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif',
  '--font-mono:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono","Liberation Mono",monospace',
].join(';');

/** The variables: light by default, dark when the reader's system prefers it. */
export const designTokens = `:root{color-scheme:light dark;${SCALE};${variables(LIGHT)}}
@media (prefers-color-scheme:dark){:root{${variables(DARK)}}}
`;

/** The mark's check, in a 32-unit square. */
const CHECK = 'M9 16.5l4.5 4.5 9.5-9.5';

/** The mark as a file (the favicon): fixed colours, since an icon file sees no page's variables. */
export const markSvg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="${LIGHT.link}"/><path d="${CHECK}" fill="none" stroke="#fff" stroke-width="3.5" stroke-linecap="round" stroke-linejoin="round"/></svg>
`;

/** The mark in a page's header, in the page's link colour (so it follows the scheme); decorative beside the name. */
export const logoMark = `<svg class="logo" viewBox="0 0 32 32" width="22" height="22" aria-hidden="true" focusable="false"><rect width="32" height="32" rx="7" fill="var(--link)"/><path d="${CHECK}" fill="none" stroke="var(--on-link)" stroke-width="3.5" stroke-linecap="round" stroke-linejoin="round"/></svg>`;

/** The header's brand as both kinds of page show it: the mark and the name, `sub` after it (the dashboard's "admin"). */
export const brandStyles = `.brand{display:inline-flex;align-items:center;gap:var(--space-2);font-weight:700;font-size:var(--text-lg);color:var(--fg);text-decoration:none}
.brand .logo{flex:none}.brand-sub{font-weight:400;color:var(--muted)}
`;

/**
 * A table stacked on a phone (a card per row) keeps its heads for screen readers, each head in a
 * 1 px clipped box too: laid out at their own widths they would run past the screen's edge, and a
 * browser may let the page scroll sideways to them. Both kinds of page, inside their phone query.
 */
export const stackedHeadsCss = 'table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);clip-path:inset(50%)}'
  + 'table.stack thead tr,table.stack thead th{display:block;width:1px;height:1px;padding:0;overflow:hidden}';
