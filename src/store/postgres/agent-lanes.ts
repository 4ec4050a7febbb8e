/**
 * Migration 19's SQL (see migrations.ts, which lists it): the lanes of the agents' histories
 * (`agent_lanes`, see AgentLane in contract/agents.ts), one row per (agent, lane) while the kept
 * history has an entry of the lane, kept in the statement that changes the history (no round trip
 * more), and their listing indexes. Like every migration, never edited once released.
 */
import { DEFAULT_BRANCH } from '../contract/agents.ts';

/** The agents listing's sort keys over a lane row (postgres/agents.ts LANE_LISTING writes the same expressions). */
export const LANE_SORT_KEYS = {
  name: `(translate(name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') collate "C")`,
  first_seen: '(first_seen collate "C")',
  last_seen: '(last_seen collate "C")',
  reports: 'reports',
} as const;

const laneIndexes = Object.entries(LANE_SORT_KEYS)
  .flatMap(([sort, key]) =>
    [['', ''], ['account_', 'account_id, '], ['verdict_', 'valid, '], ['account_verdict_', 'account_id, valid, ']].map(
      ([prefix, columns]) => `create index agent_lanes_${prefix}by_${sort} on agent_lanes (branch, ${columns}${key}, (id collate "C"));`,
    ),
  )
  .join('\n');

/** Whether a lane's incoming latest (excluded) is not older than the one it holds. */
const NEWER = '(excluded.last_seen collate "C", excluded.report_id collate "C") >= (agent_lanes.last_seen collate "C", agent_lanes.report_id collate "C")';
const latestSet = ['last_seen', 'report_id', 'valid', 'score', 'errors', 'warnings', 'unnamed'].map((c) => `${c} = case when ${NEWER} then excluded.${c} else agent_lanes.${c} end`).join(', ');

export const AGENT_LANES_SQL = `
create table agent_lanes (
  -- The agent's id (named so for the listing's keyset) and the lane's name.
  id text not null,
  branch text not null,
  -- The agent's, copied (never changed) for the listing's filter and sorts.
  account_id text not null,
  name text not null,
  first_seen text not null,
  reports integer not null,
  last_seen text not null,
  -- The lane's latest entry (its created_at is last_seen); unnamed: it named no branch.
  report_id text not null,
  valid boolean not null,
  score double precision not null,
  errors integer not null,
  warnings integer not null,
  unnamed boolean not null,
  primary key (id, branch)
);
${laneIndexes}

-- Sets the agent's lane from its history (after entries moved between lanes: a default branch
-- changed, an entry replaced by one of another branch, an import): counted through the history's
-- branch indexes (at most the history's bound, 1000 entries), its latest read through them.
create function agent_lane_recompute(wanted_agent text, lane_branch text) returns void language plpgsql as $fn$
declare
  agent agents;
  lane_unnamed boolean;
  latest agent_reports;
  n integer;
begin
  select * into agent from agents where id = wanted_agent;
  lane_unnamed := found and lane_branch = coalesce(agent.default_branch, '${DEFAULT_BRANCH}');
  select * into latest from (
    (select * from agent_reports where agent_id = wanted_agent and branch = lane_branch
      order by created_at collate "C" desc, report_id collate "C" desc limit 1)
    union all
    (select * from agent_reports where agent_id = wanted_agent and branch is null and lane_unnamed
      order by created_at collate "C" desc, report_id collate "C" desc limit 1)) as lane
  order by created_at collate "C" desc, report_id collate "C" desc limit 1;
  if agent.id is null or latest.report_id is null then
    delete from agent_lanes where id = wanted_agent and branch = lane_branch;
    return;
  end if;
  n := (select count(*) from agent_reports where agent_id = wanted_agent and branch = lane_branch)
    + case when lane_unnamed then (select count(*) from agent_reports where agent_id = wanted_agent and branch is null) else 0 end;
  insert into agent_lanes (id, branch, account_id, name, first_seen, reports, last_seen, report_id, valid, score, errors, warnings, unnamed)
    values (agent.id, lane_branch, agent.account_id, agent.name, agent.first_seen, n, latest.created_at, latest.report_id, latest.valid, latest.score, latest.errors, latest.warnings, latest.branch is null)
    on conflict (id, branch) do update set account_id = excluded.account_id, name = excluded.name, first_seen = excluded.first_seen, reports = excluded.reports,
      last_seen = excluded.last_seen, report_id = excluded.report_id, valid = excluded.valid, score = excluded.score, errors = excluded.errors, warnings = excluded.warnings, unnamed = excluded.unnamed;
end $fn$;

-- The lanes after an entry was written (agent: as it is now; added: a new entry, else the branch
-- of the entry it replaced; default_before: the default branch before): a new entry counts in its
-- lane, its latest when not older; an entry that made the agent's first default branch (the
-- entries naming none move there), or a replaced one, has its lanes recomputed.
create function agent_lanes_after(agent agents, entry jsonb, added boolean, replaced_branch text, default_before text) returns void language plpgsql as $fn$
declare
  default_now text := coalesce(agent.default_branch, '${DEFAULT_BRANCH}');
  lane text := coalesce(entry->>'branch', default_now);
  moved boolean := coalesce(default_before, '${DEFAULT_BRANCH}') <> default_now;
begin
  if added and not moved then
    insert into agent_lanes (id, branch, account_id, name, first_seen, reports, last_seen, report_id, valid, score, errors, warnings, unnamed)
      values (agent.id, lane, agent.account_id, agent.name, agent.first_seen, 1, entry->>'created_at', entry->>'report_id', (entry->>'valid')::boolean,
        (entry->>'score')::double precision, (entry->>'errors')::integer, (entry->>'warnings')::integer, entry->>'branch' is null)
      on conflict (id, branch) do update set reports = agent_lanes.reports + 1, ${latestSet};
    return;
  end if;
  perform agent_lane_recompute(agent.id, lane);
  if not added then
    perform agent_lane_recompute(agent.id, coalesce(replaced_branch, default_now));
  end if;
  if moved then
    perform agent_lane_recompute(agent.id, coalesce(default_before, '${DEFAULT_BRANCH}'));
    perform agent_lane_recompute(agent.id, default_now);
  end if;
end $fn$;

-- Migration 18's, keeping the lanes in the same statement (no round trip more): the entry's
-- lane counted (agent_lanes_after), and each entry the trim removes uncounted from its lane (the
-- oldest entry is its lane's latest only when alone there: that row goes).
create or replace function record_agent_entry(entry jsonb, history_limit integer) returns setof agents language plpgsql as $fn$
declare
  entry_agent text := entry->>'agent_id';
  entry_report text := entry->>'report_id';
  entry_created text := entry->>'created_at';
  entry_valid boolean := (entry->>'valid')::boolean;
  latest_before jsonb;
  default_before text;
  replaced_branch text;
  newest boolean;
  added integer;
  agent agents;
  gone_branch text;
  gone_lane text;
  left_in_lane integer;
  trimmed integer := 0;
begin
  select latest, default_branch into latest_before, default_before from agents where id = entry_agent for update;
  if not found then
    return;
  end if;
  select branch into replaced_branch from agent_reports where agent_id = entry_agent and report_id = entry_report;
  newest := latest_before is null
    or (entry_created collate "C", entry_report collate "C") >= (latest_before->>'created_at' collate "C", latest_before->>'report_id' collate "C");
  insert into agent_reports (agent_id, report_id, created_at, valid, score, errors, warnings, branch)
    values (entry_agent, entry_report, entry_created, entry_valid, (entry->>'score')::double precision, (entry->>'errors')::integer, (entry->>'warnings')::integer, entry->>'branch')
    on conflict (agent_id, report_id) do update set created_at = excluded.created_at, valid = excluded.valid, score = excluded.score,
      errors = excluded.errors, warnings = excluded.warnings, branch = excluded.branch
    returning (xmax = 0)::integer into added;
  update agents set
    reports = reports + added,
    valid = valid + case when entry_valid then added else 0 end,
    invalid = invalid + case when entry_valid then 0 else added end,
    history = history + added,
    latest = case when newest then entry else latest end,
    latest_report_id = case when newest then entry_report else latest_report_id end,
    last_seen = case when newest then entry_created else last_seen end,
    last_checked_at = case when newest then entry_created else last_checked_at end,
    unchanged_runs = case when newest then 0 else unchanged_runs end,
    default_branch = coalesce(default_branch, entry->>'branch'),
    default_valid = agent_badge_valid(entry_agent, coalesce(default_branch, entry->>'branch', '${DEFAULT_BRANCH}'))
  where id = entry_agent
  returning * into agent;
  perform agent_lanes_after(agent, entry, added = 1, replaced_branch, default_before);
  if agent.history > history_limit then
    for gone_branch in
      delete from agent_reports where agent_id = entry_agent and report_id in (
        select report_id from agent_reports where agent_id = entry_agent and report_id is distinct from agent.latest_report_id
        order by created_at collate "C", report_id collate "C" limit agent.history - history_limit)
      returning branch
    loop
      gone_lane := coalesce(gone_branch, agent.default_branch, '${DEFAULT_BRANCH}');
      update agent_lanes set reports = reports - 1 where id = entry_agent and branch = gone_lane returning reports into left_in_lane;
      if left_in_lane <= 0 then
        delete from agent_lanes where id = entry_agent and branch = gone_lane;
      end if;
      trimmed := trimmed + 1;
    end loop;
    update agents set history = history - trimmed where id = entry_agent;
    update agents set default_valid = agent_badge_valid(entry_agent, coalesce(default_branch, '${DEFAULT_BRANCH}')) where id = entry_agent returning * into agent;
  end if;
  return next agent;
end $fn$;

-- An agent's default branch set, the entries naming none moved from the old default's lane to
-- the new one's, and the badge's verdict kept: one statement. No row: no such agent.
create function set_agent_default_branch(wanted_agent text, new_default text) returns setof agents language plpgsql as $fn$
declare
  default_before text;
  agent agents;
begin
  select default_branch into default_before from agents where id = wanted_agent for update;
  if not found then
    return;
  end if;
  update agents set default_branch = new_default, default_valid = agent_badge_valid(id, new_default) where id = wanted_agent returning * into agent;
  perform agent_lane_recompute(wanted_agent, coalesce(default_before, '${DEFAULT_BRANCH}'));
  perform agent_lane_recompute(wanted_agent, new_default);
  return next agent;
end $fn$;

-- The lanes of the histories recorded before them.
select count(agent_lane_recompute(lanes.agent_id, lanes.lane)) from (
  select distinct r.agent_id, coalesce(r.branch, a.default_branch, '${DEFAULT_BRANCH}') as lane
  from agent_reports r join agents a on a.id = r.agent_id) as lanes;
`;
