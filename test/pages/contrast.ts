/** WCAG contrast of two colours: `#rrggbb` or the `rgb()`/`rgba()` a browser computes (alpha ignored). */
const channels = (colour: string): [number, number, number] => {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour);
  if (hex) return [1, 2, 3].map((i) => parseInt(hex[i]!, 16)) as [number, number, number];
  const rgb = /rgba?\(\s*([\d.]+)[ ,]+([\d.]+)[ ,]+([\d.]+)/.exec(colour);
  if (rgb) return [1, 2, 3].map((i) => Number(rgb[i])) as [number, number, number];
  throw new Error(`not a colour: ${colour}`);
};

const luminance = (colour: string): number => {
  const [r, g, b] = channels(colour).map((c) => {
    const v = c / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
};

export const contrast = (a: string, b: string): number => {
  const [x, y] = [luminance(a), luminance(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
};

/**
 * Every visible text of the page with its colour and the first mostly opaque background behind it,
 * each colour resolved to rgb by drawing it (pages may use oklch() or color-mix()). Plain
 * JavaScript text: the test's own code is transpiled with helpers the page does not have.
 */
const visibleTextColoursScript = `(() => {
  const ctx = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
  const resolve = (c) => {
    ctx.clearRect(0, 0, 1, 1);
    ctx.fillStyle = '#000'; ctx.fillStyle = c; ctx.fillRect(0, 0, 1, 1);
    const [r, g, b, a] = ctx.getImageData(0, 0, 1, 1).data;
    return { rgb: 'rgb(' + r + ', ' + g + ', ' + b + ')', alpha: a / 255 };
  };
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = resolve(getComputedStyle(e).backgroundColor);
      if (c.alpha > 0.5) return c.rgb;
    }
    const root = resolve(getComputedStyle(document.documentElement).backgroundColor);
    return root.alpha > 0.5 ? root.rgb : 'rgb(255, 255, 255)';
  };
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || el.getClientRects().length === 0) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || Number(style.opacity) === 0) continue;
    out.push({ text: n.textContent.trim().slice(0, 40), fg: resolve(style.color).rgb, bg: background(el) });
  }
  return out;
})()`;

/** The visible texts under `min`:1 contrast, and how many texts were checked (a test asserts some were). */
export const lowContrastTexts = async (page: { evaluate: (script: string) => Promise<unknown> }, min: number) => {
  const texts = (await page.evaluate(visibleTextColoursScript)) as Array<{ text: string; fg: string; bg: string }>;
  const low = texts.filter((t) => contrast(t.fg, t.bg) < min).map((t) => `${t.text}: ${t.fg} on ${t.bg} (${contrast(t.fg, t.bg).toFixed(2)})`);
  return { checked: texts.length, low };
};
