/**
 * Migration 18's SQL (see migrations.ts, which lists it): the badge's verdict kept on each agent
 * (`default_valid`), so that the agents listing filters by it through an index. Like every
 * migration, never edited once released: a change is a new one.
 */
import { DEFAULT_BRANCH } from '../contract/agents.ts';

export const AGENT_VERDICT_SQL = `
-- The validity of the latest entry of the agent's default lane (its default branch's entries and
-- those naming none), as the badge shows it; null when the lane has none. Two index walks of one
-- entry each (agent_reports_branch, agent_reports_unnamed), however long the history.
create function agent_badge_valid(wanted_agent text, lane_branch text) returns boolean language sql stable as $fn$
  select valid from (
    (select valid, created_at, report_id from agent_reports where agent_id = wanted_agent and branch = lane_branch
      order by created_at collate "C" desc, report_id collate "C" desc limit 1)
    union all
    (select valid, created_at, report_id from agent_reports where agent_id = wanted_agent and branch is null
      order by created_at collate "C" desc, report_id collate "C" desc limit 1)) as lane
  order by created_at collate "C" desc, report_id collate "C" desc limit 1
$fn$;

alter table agents add column default_valid boolean;
update agents set default_valid = agent_badge_valid(id, coalesce(default_branch, '${DEFAULT_BRANCH}'));
-- The listing's sorts among the agents of one verdict (see postgres/agents.ts, which writes the same expressions).
create index agents_verdict_by_name on agents (default_valid, (translate(name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') collate "C"), (id collate "C"));
create index agents_verdict_by_first_seen on agents (default_valid, (first_seen collate "C"), (id collate "C"));
create index agents_verdict_by_last_seen on agents (default_valid, (last_seen collate "C"), (id collate "C"));
create index agents_verdict_by_reports on agents (default_valid, reports, (id collate "C"));

-- Migration 17's, keeping default_valid in the same statement (no round trip more): set as the
-- entry is recorded, and again when trimming the history took the lane's latest.
create or replace function record_agent_entry(entry jsonb, history_limit integer) returns setof agents language plpgsql as $fn$
declare
  entry_agent text := entry->>'agent_id';
  entry_report text := entry->>'report_id';
  entry_created text := entry->>'created_at';
  entry_valid boolean := (entry->>'valid')::boolean;
  latest_before jsonb;
  newest boolean;
  added integer;
  agent agents;
begin
  select latest into latest_before from agents where id = entry_agent for update;
  if not found then
    return;
  end if;
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
  if agent.history > history_limit then
    with gone as (
      delete from agent_reports where agent_id = entry_agent and report_id in (
        select report_id from agent_reports where agent_id = entry_agent and report_id is distinct from agent.latest_report_id
        order by created_at collate "C", report_id collate "C" limit agent.history - history_limit)
      returning 1)
    update agents set history = history - (select count(*) from gone) where id = entry_agent;
    update agents set default_valid = agent_badge_valid(entry_agent, coalesce(default_branch, '${DEFAULT_BRANCH}')) where id = entry_agent returning * into agent;
  end if;
  return next agent;
end $fn$;
`;
