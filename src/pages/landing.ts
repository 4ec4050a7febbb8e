/**
 * The landing page (/): what this server is, where everything is, and a form to paste a card
 * and get its report (sent by the page's script to POST /v1/validate, under the anonymous quota).
 */
import { version } from '../lib/version.ts';
import { ruleCatalogue, supportedVersions } from '../engine/index.ts';
import { ruleSetVersions } from '../engine/versions.ts';
import { esc, renderPage } from './layout.ts';

/** Where things are: the same list for the page and for its JSON twin (Accept: application/json). */
export const landingLinks = [
  { key: 'docs', path: '/docs', title: 'API documentation', text: 'Every endpoint, its request and its answers.' },
  { key: 'openapi', path: '/openapi.json', title: 'OpenAPI document', text: 'The API as an OpenAPI 3.1 document, for clients and tools.' },
  { key: 'rules', path: '/rules', title: 'Rules', text: `The ${ruleCatalogue.length} rules cards are checked against, with examples.` },
  { key: 'dashboard', path: '/dashboard', title: 'Dashboard', text: 'Accounts, API keys, usage and reports (admin token).' },
  { key: 'health', path: '/healthz', title: 'Health', text: 'Liveness; /readyz also checks the store.' },
] as const;

export const describeService = 'cardgate validates A2A agent cards: it checks a card against the rules of its protocol version, scores it, and keeps a report you can link to.';

export const landingJson = (publicUrl: string) => ({
  service: 'cardgate',
  version,
  description: describeService,
  protocol_versions: [...supportedVersions],
  links: Object.fromEntries(landingLinks.map((l) => [l.key, `${publicUrl}${l.path}`])),
  validate: `${publicUrl}/v1/validate`,
});

const example = `curl -s -X POST {url}/v1/validate -H 'content-type: application/json' \\
  -d '{"agent_card": '"$(cat agent-card.json)"', "options": {"include_score": true}}'`;

/**
 * The card "Load an example" puts in the form: a plausible 0.3.0 card with findings worth showing
 * (no provider, an http documentation URL, a skill without examples).
 */
export const exampleCard = `{
  "protocolVersion": "0.3.0",
  "name": "Trip Planner",
  "description": "Plans multi-city trips: flights, trains and hotels within a budget.",
  "url": "https://trips.example.com/a2a/v1",
  "preferredTransport": "JSONRPC",
  "version": "1.4.0",
  "documentationUrl": "http://trips.example.com/docs",
  "capabilities": { "streaming": true },
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["text/plain", "application/json"],
  "skills": [
    {
      "id": "plan-trip",
      "name": "Plan a trip",
      "description": "Builds an itinerary from dates, cities and a budget.",
      "tags": ["travel", "itinerary"]
    }
  ]
}
`;

/**
 * `maxCardBytes`: the largest card text the server takes in a request (the form refuses a bigger file
 * before sending it); `metered`: keyless callers have a daily limit (not in sidecar mode, nor with the
 * anonymous limit at -1).
 */
export const renderLanding = (publicUrl: string, { maxCardBytes, metered }: { maxCardBytes: number; metered: boolean }): string =>
  renderPage({
    title: 'cardgate · A2A agent card validation',
    description: describeService,
    url: `${publicUrl}/`,
    body: `<h1>cardgate</h1><p>${esc(describeService)}</p><p class="muted">Version ${esc(version)} · A2A ${esc(ruleSetVersions.join(', '))}</p>
<section><h2>Validate a card</h2>
<form data-validate data-max-bytes="${maxCardBytes}"><label for="card">Agent card (JSON)</label>
<textarea id="card" name="card" spellcheck="false" placeholder='{"protocolVersion": "0.3.0", "name": "…", …}' aria-describedby="card-help"></textarea>
<p id="card-help" class="muted">Paste the card, drop its file here, or <label class="file">choose a file<input type="file" name="file" accept=".json,application/json"></label>.</p>
<p><label for="agent-url">Or the agent's URL</label> <input id="agent-url" name="url" type="url" inputmode="url" placeholder="https://agent.example" size="34"> <span class="muted">(a bare origin: its /.well-known/agent-card.json)</span></p>
<p class="actions"><button class="primary" type="submit" hidden>Validate</button> <button type="button" data-example hidden>Load an example</button>${metered ? ` <span class="muted" data-quota>Counts against this address's daily anonymous quota.</span>` : ''}</p></form>
<template id="example-card">${esc(exampleCard)}</template>
<noscript><p>The form needs JavaScript. Without it, send the card yourself:</p></noscript>
<div id="result" aria-live="polite" hidden></div>
<details><summary>From a terminal</summary><pre>${esc(example.replace('{url}', publicUrl))}</pre></details></section>
<section><h2>Everything else</h2><ul>${landingLinks.map((l) => `<li><a href="${esc(l.path)}">${esc(l.title)}</a>: ${esc(l.text)}</li>`).join('')}</ul></section>`,
  });
