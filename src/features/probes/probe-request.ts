/**
 * The body of POST /v1/probe: the card to probe by `url` (a bare origin means its well-known card)
 * or given as `agent_card`, and the options of /v1/validate plus `send_message` and `headers`.
 * Read here, on the request's thread (the size and depth are bounded), because the probe needs the
 * card's interfaces before anything is validated; what the validator and the store get is the body
 * without `headers` (credentials are used for the run only).
 */
import * as z from 'zod';
import { ApiError } from '../../errors/api-error.ts';
import { jsonBody } from '../../errors/bad-input.ts';
import { isJsonObject } from '../../lib/json.ts';
import { MAX_URL_CHARS } from '../validation/card-result.ts';
import { unusable, validateRequestSchema } from '../validation/validation.ts';
import { MAX_HEADER_VALUE, MAX_HEADERS, readHeaders } from './credentials.ts';
import type { ProbeAsk, ProbeTarget } from './probe.ts';

const validateOptions = validateRequestSchema.shape.options.unwrap();

export const probeRequestSchema = z
  .object({
    url: z
      .string({ error: 'must be a string' })
      .max(MAX_URL_CHARS, `must be at most ${MAX_URL_CHARS} characters`)
      .meta({ format: 'uri', description: `The card's URL (a bare origin means its \`/.well-known/agent-card.json\`, then \`/.well-known/agent.json\`), probed under \`cardFetch.allowedHosts\`; or give \`agent_card\`. At most ${MAX_URL_CHARS} characters.` })
      .optional(),
    agent_card: z
      .custom<Record<string, unknown>>(isJsonObject, { error: 'agent_card must be a JSON object' })
      .meta({ type: 'object', description: 'The card itself: its interfaces are probed, and the card their origin serves is compared with it.' })
      .optional(),
    validation_mode: validateRequestSchema.shape.validation_mode,
    options: validateOptions
      .extend({
        send_message: z.boolean({ error: 'must be a boolean' }).optional().meta({ description: 'Also send one marked message ("cardgate probe, safe to ignore"; it may create a task) and, when the card declares streaming, one streaming request. Default false: read-only.' }),
        headers: z
          .record(z.string(), z.string({ error: 'must be a string' }).max(MAX_HEADER_VALUE, `must be at most ${MAX_HEADER_VALUE} characters`))
          .refine((h) => Object.keys(h).length <= MAX_HEADERS, `at most ${MAX_HEADERS} headers`)
          .optional()
          .meta({ description: `Headers (credentials) sent to the card's https interfaces for this probe only: never stored, logged or echoed. At most ${MAX_HEADERS}.` }),
      })
      .default({}),
  })
  .superRefine(
    (request, ctx) => {
      const hasCard = request.agent_card !== undefined;
      if (hasCard && request.url !== undefined) ctx.addIssue({ code: 'custom', path: ['url'], message: 'give url or agent_card, not both' });
      if (!hasCard && request.url === undefined) ctx.addIssue({ code: 'custom', path: ['url'], message: 'url (or agent_card) is required' });
    },
    { when: (payload) => isJsonObject(payload.value) },
  )
  .meta({ id: 'ProbeRequest', oneOf: [{ required: ['url'] }, { required: ['agent_card'] }] });

/** A probe body as the use case needs it. */
export interface ReadProbe {
  target: ProbeTarget;
  ask: ProbeAsk;
  /** The validate body a card read from `url` is judged with (its options, no `headers`), the URL as `agent_url`. */
  validateText: string;
  /** The body as stored: without `headers`. */
  storedText: (cardText?: string) => string;
}

export const readProbeRequest = (text: string, maxDepth: number): ReadProbe => {
  const parsed = probeRequestSchema.safeParse(jsonBody(text, { maxDepth, validationShape: true }));
  if (!parsed.success) throw unusable(parsed.error.issues.map((issue) => ({ path: issue.path.join('.') || 'body', message: issue.message })));
  const { url, agent_card: card, validation_mode, options } = parsed.data;
  const { send_message: sendMessage = false, headers = {}, ...validate } = options;
  const read = readHeaders(Object.entries(headers));
  if ('problem' in read) throw unusable([{ path: 'options.headers', message: read.problem }]);
  const common = { validation_mode, options: validate };
  return {
    target: url !== undefined ? { url } : { card: card! },
    ask: { sendMessage, headers: read.headers },
    validateText: JSON.stringify({ agent_url: url ?? '', ...common }),
    storedText: (cardText) =>
      url === undefined
        ? JSON.stringify({ agent_card: card, ...common, options: { ...validate, send_message: sendMessage } })
        : `{"agent_card":${cardText ?? 'null'},"url":${JSON.stringify(url)},"validation_mode":${JSON.stringify(validation_mode)},"options":${JSON.stringify({ ...validate, send_message: sendMessage })}}`,
  };
};

/** The 503 of a probe when probes.maxConcurrent are running. */
export const probesBusy = (max: number) => new ApiError('SERVICE_UNAVAILABLE', `${max} probes are running (probes.maxConcurrent); try again shortly`, { headers: { 'Retry-After': '5' } });
