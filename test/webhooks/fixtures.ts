/** Cards and an app with the webhook routes mounted, for the webhook tests. */
import { createWebhookLimiter } from '../../src/http/middleware/webhook-limit.ts';
import { webhookRoutes } from '../../src/http/routes/webhooks.ts';
import { JobRunner, type JobRunnerOptions } from '../../src/jobs/runner.ts';
import { testApp } from '../helpers/app.ts';

export const validCard = {
  protocolVersion: '0.3.0',
  name: 'Party Store Supply Chain Agent',
  description: 'Assists with supply chain planning and purchasing inventory.',
  url: 'https://agents.example.com/a2a/app',
  version: '1.0.0',
  preferredTransport: 'JSONRPC',
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain', 'application/json'],
  capabilities: { streaming: false },
  skills: [{ id: 'manage_supply_chain', name: 'Supply chain', description: 'Queries inventory levels.', tags: ['inventory'] }],
};

/** Missing name (and more): invalid. */
export const invalidCard = { protocolVersion: '0.3.0', description: 'no name' };

export const webhookKeys = ['validation_id', 'status', 'valid', 'score', 'errors', 'warnings', 'suggestions', 'metadata', 'report_url', 'timestamp'];

/** testApp (MemoryStore, FakeClock) with the webhook routes mounted at /v1 and a started runner the test can wait on. */
export const webhookApp = (options: Parameters<typeof testApp>[0] & { runner?: JobRunnerOptions } = {}) => {
  const t = testApp(options);
  const jobs = new JobRunner(t.deps, options.runner);
  t.app.route('/v1', webhookRoutes(t.deps, { limiter: createWebhookLimiter(t.deps), jobs }));
  jobs.start();
  return { ...t, jobs };
};
