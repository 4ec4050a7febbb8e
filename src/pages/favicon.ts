/**
 * The site's icon, answered at /favicon.ico, where browsers ask for it unasked on every page (the
 * public pages name no icon: they hold no <link> at all); the API reference and the dashboard
 * name it. A small SVG mark: a check in a rounded square, in the pages' link colour.
 */
export const FAVICON_PATH = '/favicon.ico';

export const faviconSvg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0960cc"/><path d="M9 16.5l4.5 4.5 9.5-9.5" fill="none" stroke="#fff" stroke-width="3.5" stroke-linecap="round" stroke-linejoin="round"/></svg>
`;

/** The head's link to it, for the pages that name it. */
export const faviconLink = `<link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml">`;
