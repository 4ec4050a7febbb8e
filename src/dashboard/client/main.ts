/**
 * The dashboard's browser entry: bundled by esbuild (src/dashboard/script.ts)
 * into the one script the page loads, /dashboard/app.js, with `defer`.
 */
import { startDashboard } from './shell.ts';

document.addEventListener('DOMContentLoaded', startDashboard);
