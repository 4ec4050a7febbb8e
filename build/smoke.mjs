// Smoke test of a built artefact: node build/smoke.mjs <command...>
// Starts `<command> serve --port 0` in an empty temp directory (no node_modules),
// checks GET /healthz, one POST /v1/validate, the dashboard's script (embedded at build
// time), the API description (/openapi.json) and its page (/docs), /metrics (prom-client in the bundle,
// process metrics included, the validation just sent counted), sends SIGTERM, expects exit code 0.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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
const started = performance.now();
const child = spawn(cmd, [...pre, 'serve', '--port', '0', '--data-dir', join(cwd, 'data')], {
  cwd,
  env: { ...process.env, CARDGATE_ADMIN_TOKEN: 'smoke-admin-token-0123456789' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const fail = (message) => {
  console.error(`smoke (${cmd}): ${message}`);
  child.kill('SIGKILL');
  process.exit(1);
};
const timer = setTimeout(() => fail('no listening line within 30 s'), 30_000);
let out = '';
const port = await new Promise((resolve) => {
  child.stdout.on('data', (d) => {
    out += d;
    const m = /"msg":"listening".*?"url":"http:\/\/[^"]*:(\d+)"/.exec(out);
    if (m) resolve(Number(m[1]));
  });
  child.once('exit', (code) => fail(`exited with ${code} before listening:\n${out}`));
});
clearTimeout(timer);
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
if (docs.status !== 200 || !/^text\/html/.test(docs.headers.get('content-type') ?? '') || !docsText.includes('/v1/validate/batch')) {
  fail(`/docs answered ${docs.status} ${docs.headers.get('content-type')}, ${docsText.length} characters`);
}
const metrics = await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer smoke-admin-token-0123456789' } });
const metricsText = await metrics.text();
if (
  metrics.status !== 200 ||
  !/^cardgate_validations_total\{kind="single",verdict="(in)?valid"\} 1$/m.test(metricsText) ||
  !/^process_cpu_user_seconds_total \d/m.test(metricsText)
) {
  fail(`/metrics answered ${metrics.status}:\n${metricsText.slice(0, 2000)}`);
}
child.removeAllListeners('exit');
child.kill('SIGTERM');
const code = await new Promise((resolve) => child.once('exit', resolve));
if (code !== 0) fail(`exit code ${code} after SIGTERM`);
console.log(`smoke (${cmd}): ok — first 200 after ${firstOk.toFixed(0)} ms, valid=${result.valid}, app.js ${scriptText.length} chars, ${Object.keys(doc.paths).length} paths described, /metrics ${metricsText.split('\n').length} lines, exit 0 after SIGTERM`);
