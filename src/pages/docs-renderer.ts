/**
 * The renderer of the /docs page: Scalar's API reference, one self-contained script vendored in
 * vendor/scalar (see its README). It is held gzip-compressed (1.2 MB instead of 4.3 MB), sent as
 * it is to browsers that accept gzip (all of them) and inflated once for a client that does not.
 * build/build.mjs embeds the compressed bytes in the bundles; from the sources the file is read at
 * first use.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';

/** Set by build/build.mjs: the vendored script, gzip-compressed, as base64. */
declare const __DOCS_RENDERER_GZIP__: string | undefined;

/** Part of the script's address, so a new version is never served from a stale cache. */
export const docsRendererVersion = '1.72.1';

/** The vendored script, gzip-compressed (also called by build/build.mjs to embed it). */
export const compressDocsRenderer = (): Buffer => {
  const file = new URL('../../vendor/scalar/api-reference.standalone.js', import.meta.url);
  // The source map it names is not shipped: without the comment a browser's tools do not ask for it.
  const text = readFileSync(file, 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
  return gzipSync(text, { level: 9 });
};

let compressed: Buffer | undefined;
let inflated: Buffer | undefined;

export const docsRenderer = {
  gzip: (): Buffer =>
    (compressed ??= typeof __DOCS_RENDERER_GZIP__ === 'string' ? Buffer.from(__DOCS_RENDERER_GZIP__, 'base64') : compressDocsRenderer()),
  plain: (): Buffer => (inflated ??= gunzipSync(docsRenderer.gzip())),
};
