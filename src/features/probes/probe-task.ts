/**
 * The validator task of POST /v1/probe: the card judged with the body's options and the probe's
 * checks (options.live of the engine), so its live findings are in every format like any other.
 * Runs in a validation worker; the probe itself ran on the request's thread.
 */
import type { LiveCheck } from '../../engine/live/checks.ts';
import { validateCard } from '../../engine/validate.ts';
import type { BodyParts, Engine, ValidationSettings } from '../validation/card-result.ts';
import { validateFetchedText, validateSingleText, type FetchedSingle, type SingleOutcome } from '../validation/validation.ts';

/** The card as served (a probe by URL) or in the body (`agent_card`), with the probe's checks. */
export type ProbedCard = { live: LiveCheck[] } & ({ fetched: FetchedSingle } | { body: BodyParts });

export const validateProbed = (input: ProbedCard, settings: ValidationSettings, engine: Engine = validateCard): SingleOutcome => {
  const withLive: Engine = (card, options) => engine(card, { ...options, live: input.live });
  if ('fetched' in input) return validateFetchedText(input.fetched, settings, withLive);
  const outcome = validateSingleText(input.body, settings, withLive);
  // The body names its card (readProbeRequest made it so): never a URL to fetch.
  if ('agentUrl' in outcome) throw new Error('a probed body names its card');
  return outcome;
};
