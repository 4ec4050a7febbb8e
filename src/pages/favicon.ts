/**
 * The site's icon, answered at /favicon.ico, where browsers ask for it unasked on every page (the
 * public pages name no icon: they hold no <link> at all); the API reference and the dashboard
 * name it. The logo mark (design.ts): a check in a rounded square, in the pages' link colour.
 */
import { markSvg } from './design.ts';

export const FAVICON_PATH = '/favicon.ico';

/** The logo mark every page's header shows (design.ts), as a file. */
export const faviconSvg = markSvg;

/** The head's link to it, for the pages that name it. */
export const faviconLink = `<link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml">`;
