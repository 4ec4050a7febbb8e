// Smoke test of a built artefact: node build/smoke.mjs <command...>
// Starts `<command> serve --port 0` in an empty temp directory (no node_modules),
// checks GET /healthz, one POST /v1/validate, one MCP tool call over HTTP (and `mcp` over stdio), the dashboard's script (embedded at build
// time), the API description (/openapi.json) and its page (/docs), /metrics (prom-client in the bundle,
// process metrics included, the validation just sent counted), sends SIGTERM, expects exit code 0.
// What the run's environment decides is checked too, since the single executable starts from a
// snapshot taken at build time: the working directory (cardgate.json there, a relative --data-dir,
// `validate` of a relative path), CARDGATE_* and FORCE_COLOR, the process's start time in /metrics,
// and ids drawn afresh by a second start.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// The server runs in an empty temp dir, so paths given relative to here are made absolute.
const [cmd, ...pre] = process.argv.slice(2).map((a) => (existsSync(a) ? resolve(a) : a));
if (!cmd) {
  console.error('usage: node build/smoke.mjs <command> [args...]');
  process.exit(2);
}
const cwd = mkdtempSync(join(tmpdir(), 'cardgate-smoke-'));
process.once('exit', () => rmSync(cwd, { recursive: true, force: true }));
const reportsUrl = 'https://reports.smoke.example';
const publicUrl = 'https://smoke.example';
writeFileSync(join(cwd, 'cardgate.json'), JSON.stringify({ reportsUrl }));
const env = { ...process.env, CARDGATE_ADMIN_TOKEN: 'smoke-admin-token-0123456789', CARDGATE_PUBLIC_URL: publicUrl };
let child;
const fail = (message) => {
  console.error(`smoke (${cmd}): ${message}`);
  child?.kill('SIGKILL');
  process.exit(1);
};

/** Starts `serve` in the temp dir with a data dir relative to it; resolves with its port once it logged that it listens. */
const startServer = async () => {
  child = spawn(cmd, [...pre, 'serve', '--port', '0', '--data-dir', 'data'], { cwd, env, stdio: ['ignore', 'pipe', 'inherit'] });
  const timer = setTimeout(() => fail('no listening line within 30 s'), 30_000);
  let out = '';
  const port = await new Promise((resolve) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = /"msg":"listening".*?"url":"http:\/\/[^"]*:(\d+)".*?"public_url":"([^"]*)"/.exec(out);
      if (m) {
        if (m[2] !== publicUrl) fail(`public_url ${m[2]}: CARDGATE_PUBLIC_URL (${publicUrl}) not read at run time`);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => fail(`exited with ${code} before listening:\n${out}`));
  });
  clearTimeout(timer);
  return port;
};

const stopServer = async () => {
  child.removeAllListeners('exit');
  child.kill('SIGTERM');
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) fail(`exit code ${code} after SIGTERM`);
};

const started = performance.now();
const startedAt = Date.now() / 1000;
const port = await startServer();
const base = `http://127.0.0.1:${port}`;
const health = await fetch(`${base}/healthz`);
if (health.status !== 200) fail(`/healthz answered ${health.status}`);
const firstOk = performance.now() - started;
const card = { name: 'Smoke', description: 'd', url: 'https://agent.example.com/a2a', version: '1.0.0', protocolVersion: '0.3.0',
  capabilities: {}, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'],
  skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'] }] };
const validate = await fetch(`${base}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agent_card: card }) });
const result = await validate.json();
if (validate.status !== 200 || typeof result.valid !== 'boolean') fail(`/v1/validate answered ${validate.status} ${JSON.stringify(result)}`);
if (!result.report_url?.startsWith(`${reportsUrl}/`)) fail(`report_url ${result.report_url}: the cardgate.json of the working directory not read`);
const script = await fetch(`${base}/dashboard/app.js`);
const scriptText = await script.text();
if (script.status !== 200 || !/^text\/javascript/.test(script.headers.get('content-type') ?? '') || !scriptText.includes('DOMContentLoaded')) {
  fail(`/dashboard/app.js answered ${script.status} ${script.headers.get('content-type')}, ${scriptText.length} characters`);
}
const described = await fetch(`${base}/openapi.json`);
const doc = await described.json();
if (described.status !== 200 || doc.openapi !== '3.1.0' || !doc.paths?.['/v1/validate']?.post) fail(`/openapi.json answered ${described.status} ${JSON.stringify(doc).slice(0, 200)}`);
const docs = await fetch(`${base}/docs`);
const docsText = await docs.text();
const rendererPath = /<script src="(\/docs\/assets\/api-reference-[\d.]+\.js)">/.exec(docsText)?.[1];
if (docs.status !== 200 || !/^text\/html/.test(docs.headers.get('content-type') ?? '') || !rendererPath) {
  fail(`/docs answered ${docs.status} ${docs.headers.get('content-type')}, ${docsText.length} characters`);
}
// The renderer embedded in the bundle: served whole (fetch inflates the gzip it is sent as).
const renderer = await fetch(`${base}${rendererPath}`);
const rendererText = await renderer.text();
if (renderer.status !== 200 || !rendererText.includes('createApiReference')) fail(`${rendererPath} answered ${renderer.status}, ${rendererText.length} characters`);
const metrics = await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer smoke-admin-token-0123456789' } });
const metricsText = await metrics.text();
if (
  metrics.status !== 200 ||
  !/^cardgate_validations_total\{kind="single",verdict="(in)?valid"\} 1$/m.test(metricsText) ||
  !/^process_cpu_user_seconds_total \d/m.test(metricsText)
) {
  fail(`/metrics answered ${metrics.status}:\n${metricsText.slice(0, 2000)}`);
}
// The MCP server in the bundle (@modelcontextprotocol/sdk), over Streamable HTTP: one tools/call.
const toolCall = (id, name, args) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
const mcp = await fetch(`${base}/mcp`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  body: JSON.stringify(toolCall(1, 'validate_card', { card: JSON.stringify(card) })),
});
const mcpAnswer = await mcp.json().catch(() => undefined);
if (mcp.status !== 200 || typeof mcpAnswer?.result?.structuredContent?.valid !== 'boolean') fail(`/mcp answered ${mcp.status} ${JSON.stringify(mcpAnswer).slice(0, 300)}`);
const startTime = Number(/^process_start_time_seconds (\d+)$/m.exec(metricsText)?.[1]);
if (!(Math.abs(startTime - startedAt) <= 2)) fail(`process_start_time_seconds ${startTime}, but the process started at ${Math.round(startedAt)}`);
await stopServer();
if (!existsSync(join(cwd, 'data'))) fail('the relative --data-dir was not made in the working directory');

// A second start draws its own ids: nothing random is left over from the build.
const port2 = await startServer();
const again = await fetch(`http://127.0.0.1:${port2}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agent_card: card }) });
const second = await again.json();
const randomPart = (id) => id?.split('_')[2];
if (again.status !== 200 || !randomPart(second.report_id) || randomPart(second.report_id) === randomPart(result.report_id)) {
  fail(`the second start's report id ${second.report_id} repeats the first start's ${result.report_id}`);
}
if (again.headers.get('x-request-id') === validate.headers.get('x-request-id')) fail(`both starts gave request id ${validate.headers.get('x-request-id')}`);
await stopServer();

// `validate` reads a path relative to the working directory, and FORCE_COLOR from the environment.
writeFileSync(join(cwd, 'card.json'), JSON.stringify(card));
const cli = spawnSync(cmd, [...pre, 'validate', 'card.json'], { cwd, env: { ...env, FORCE_COLOR: '1' }, encoding: 'utf8' });
if (cli.status !== 0 || !cli.stdout.includes('1 card checked') || !cli.stdout.includes('\x1b[')) {
  fail(`validate card.json exited ${cli.status} (FORCE_COLOR=1: colour expected):\n${cli.stdout}${cli.stderr}`);
}
// `mcp` over stdio: initialize, then one tool call reading a file of the working directory; it exits when its input ends.
const stdioMessages = [
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'smoke', version: '1' } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  toolCall(2, 'validate_card', { path: 'card.json' }),
];
const stdio = spawnSync(cmd, [...pre, 'mcp'], { cwd, env, input: stdioMessages.map((m) => `${JSON.stringify(m)}\n`).join(''), encoding: 'utf8', timeout: 30_000 });
const stdioAnswers = stdio.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line));
if (stdio.status !== 0 || stdioAnswers.find((a) => a.id === 2)?.result?.structuredContent?.source !== 'card.json') {
  fail(`mcp over stdio exited ${stdio.status}:\n${stdio.stdout.slice(0, 1000)}${stdio.stderr}`);
}
console.log(`smoke (${cmd}): ok — first 200 after ${firstOk.toFixed(0)} ms, run-time cwd and env honoured, valid=${result.valid}, app.js ${scriptText.length} chars, ${Object.keys(doc.paths).length} paths described, /metrics ${metricsText.split('\n').length} lines, exit 0 after SIGTERM`);
