/**
 * One probe as a checked input, shared by `cardgate probe` and the GitHub Action's `probe-url`:
 * the agent probed under the card-fetch policy (`cardFetch.allowedHosts`) and the probe bounds,
 * then its card (as served, or as given) validated with the live checks, so every format reports
 * them. An input that yielded no card is a failure: it could not be probed.
 */
import type { Config } from '../config.ts';
import { checkCardText, type CheckedInput } from '../engine/formats/index.ts';
import { rulesetForFile } from '../engine/ruleset/apply.ts';
import type { CompiledRulesetData } from '../engine/ruleset/compile.ts';
import { HostLimiter } from '../features/probes/limits.ts';
import { probePolicy, runProbe, type ProbeAsk } from '../features/probes/probe.ts';
import { systemClock } from '../lib/clock.ts';

export interface ProbeRun {
  config: Config;
  ask: ProbeAsk;
  ruleset?: CompiledRulesetData | undefined;
}

/** A URL refused before any request (not http(s), a refused literal address); undefined when it may be probed. */
export const probeRefusal = (config: Config, url: string): string | undefined => probePolicy(config.cardFetch.allowedHosts).refuseUrl(url);

/** Probes `target` (a URL, or a card file's text and card named `name`) and checks its card with the live checks. */
export const probeChecked = async (run: ProbeRun, target: { url: string } | { name: string; text: string; card: Record<string, unknown> }): Promise<CheckedInput> => {
  const { config } = run;
  const outcome = await runProbe(
    { policy: probePolicy(config.cardFetch.allowedHosts), config, hosts: new HostLimiter(config.probes.perHostPerMinute, systemClock), clock: systemClock, redirectsToOtherHosts: true },
    'url' in target ? { url: target.url } : { card: target.card },
    run.ask,
  );
  const name = 'url' in target ? outcome.served?.url ?? target.url : target.name;
  const text = 'url' in target ? outcome.served?.text : target.text;
  if (text === undefined) return { name, failure: { message: `could not probe: ${outcome.problem ?? 'no card'}` } };
  return checkCardText(name, text, {
    maxDepth: config.http.maxJsonDepth,
    live: outcome.live.checks,
    ...(run.ruleset ? { ruleset: rulesetForFile(run.ruleset, name) } : {}),
    ...(outcome.served?.legacyPath ? { foundAtLegacyPath: true } : {}),
  });
};
