/**
 * The dashboard's JavaScript, served as /dashboard/app.js: the TypeScript under
 * ./client bundled by esbuild into one IIFE. build/build.mjs bundles it once and
 * embeds the text in the server bundles (the SEA binary and Deno have no source
 * file and no esbuild); from the sources it is bundled at start-up, so a client
 * that does not bundle stops the server with esbuild's error instead of serving
 * a blank page.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** Set by build/build.mjs: the output of bundleDashboardClient(). */
declare const __DASHBOARD_SCRIPT__: string | undefined;

/** Bundles the client entry (from the sources only: esbuild is a devDependency). */
export const bundleDashboardClient = (entry = fileURLToPath(new URL('./client/main.ts', import.meta.url))): string => {
  // Required here, not imported at the top, so the server bundles never carry esbuild.
  const { buildSync } = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  try {
    const { outputFiles } = buildSync({
      entryPoints: [entry],
      // The module paths in the output are relative to the repository, whatever the working directory.
      absWorkingDir: fileURLToPath(new URL('../..', import.meta.url)),
      bundle: true,
      format: 'iife',
      platform: 'browser',
      target: 'es2020',
      // Unminified: one module after the other, each headed by its path, readable in the browser's debugger.
      legalComments: 'none',
      charset: 'ascii',
      write: false,
      logLevel: 'silent',
    });
    return outputFiles[0]!.text;
  } catch (e) {
    throw new Error(`cannot bundle the dashboard client ${entry}: ${(e as Error).message}`, { cause: e });
  }
};

let bundled: string | undefined;
export const dashboardScript = (): string =>
  typeof __DASHBOARD_SCRIPT__ === 'string' ? __DASHBOARD_SCRIPT__ : (bundled ??= bundleDashboardClient());
