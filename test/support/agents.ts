/** Agents and histories for the store's tests, and an agent's lanes (AgentLane) as a store keeps them, checked against a recomputation from its kept history. */
import assert from 'node:assert/strict';
import { AGENT_HISTORY_LIMIT, laneOf, type AgentLane, type AgentReportEntry } from '../../src/store/contract/agents.ts';
import type { Store } from '../../src/store/contract/store.ts';
import { T0, iso } from '../store/fixtures/records.ts';

/** An agent's candidate of `account_id` named `name`, first seen at `at`. */
export const candidate = (id: string, account_id: string, name: string, at = T0) => ({ id, account_id, name, first_seen: iso(at), badge_token: `token_${id}` });

/** A history entry of `report_id` at `at` (valid, score 90, naming no branch unless `over` says). */
export const entry = (agent_id: string, report_id: string, at: number, over: Partial<AgentReportEntry> = {}): AgentReportEntry => ({
  agent_id,
  report_id,
  created_at: iso(at),
  valid: true,
  score: 90,
  errors: 0,
  warnings: 1,
  branch: null,
  ...over,
});

export const accounts = async (s: Store, ...ids: string[]) => {
  for (const id of ids) await s.createAccount({ id, name: id, plan: 'pro', created_at: iso(T0) });
};

/** The lanes the agent's kept history makes, by name (none for an unknown agent). */
export const recomputedLanes = async (s: Store, agentId: string): Promise<Map<string, AgentLane>> => {
  const agent = await s.getAgent(agentId);
  const lanes = new Map<string, AgentLane>();
  if (!agent) return lanes;
  // Newest first: the first of a lane is its latest.
  for (const e of await s.listAgentReports(agentId, { limit: AGENT_HISTORY_LIMIT + 1 })) {
    const name = laneOf(agent, e.branch).name;
    const lane = lanes.get(name);
    if (lane) lanes.set(name, { ...lane, reports: lane.reports + 1 });
    else lanes.set(name, { agent_id: agentId, branch: name, reports: 1, last_seen: e.created_at, latest: e });
  }
  return lanes;
};

/** The agent's lanes as the store keeps them, asked by `names` (those it has none of are absent), by name. */
const keptLanes = async (s: Store, agentId: string, names: readonly string[]): Promise<Map<string, AgentLane>> =>
  new Map((await s.getAgentLanes(names.map((branch) => ({ agent_id: agentId, branch })))).map((lane) => [lane.branch, { ...lane, latest: { ...lane.latest } }]));

const sorted = (lanes: Map<string, AgentLane>) => [...lanes.values()].sort((a, b) => (a.branch < b.branch ? -1 : 1));

/** The store's lanes equal the recomputation's, among `names` (and every lane the history has). */
export const assertLanes = async (s: Store, agentId: string, names: readonly string[], message = ''): Promise<void> => {
  const expected = await recomputedLanes(s, agentId);
  const asked = [...new Set([...names, ...expected.keys()])];
  assert.deepEqual(sorted(await keptLanes(s, agentId, asked)), sorted(expected), message);
};

