/**
 * Migration 17's SQL (see migrations.ts, which lists it; kept here for that file's size): the
 * functions that make joining an agent and recording a history entry one statement each
 * (postgres/agents.ts). Like every migration, never edited once released: a change is a new one.
 */
export const AGENT_FUNCTIONS_SQL = `
-- Each statement of a volatile function reads a new snapshot: a row lock taken by the first lets
-- the next see what the transaction that held it committed, as the statements of a transaction
-- sent one by one do, without waiting for the client between them (one round trip where a
-- validation's record took a transaction of six; see postgres/agents.ts).

-- An account's agent of this name, made with the id, first-seen time and badge token given when
-- there is none while the account has fewer than max_per_account (null: no bound): creations of
-- one account count under its row lock, one after the other on any instance. No row: the account
-- is gone. Past the bound: SQLSTATE CGA01 (AgentLimitReachedError).
create function ensure_agent(new_id text, wanted_account text, wanted_name text, first_seen_at text, new_badge_token text, max_per_account integer)
returns setof agents language plpgsql as $fn$
declare
  agent agents;
begin
  select * into agent from agents where account_id = wanted_account and name = wanted_name;
  if found then
    return next agent;
    return;
  end if;
  -- "for no key update": creations of one account wait for each other; keys and reports do not.
  perform 1 from accounts where id = wanted_account for no key update;
  if not found then
    return;
  end if;
  if max_per_account is not null and (select count(*) from agents where account_id = wanted_account) >= max_per_account then
    select * into agent from agents where account_id = wanted_account and name = wanted_name;
    if not found then
      raise exception 'account % already has % agents', wanted_account, max_per_account using errcode = 'CGA01';
    end if;
    return next agent;
    return;
  end if;
  insert into agents (id, account_id, name, first_seen, last_seen, badge_token)
    values (new_id, wanted_account, wanted_name, first_seen_at, first_seen_at, new_badge_token)
    on conflict (account_id, name) do nothing
    returning * into agent;
  if not found then
    -- A concurrent creation of the same name won: its agent, in a new snapshot.
    select * into agent from agents where account_id = wanted_account and name = wanted_name;
  end if;
  if found then
    return next agent;
  end if;
end $fn$;

-- A history entry (the jsonb an agent's latest holds) recorded under its agent's row lock, so
-- that concurrent records of one agent each count and the newest stays the latest; counted when
-- new (an entry of a report recorded before replaces it); a history over history_limit loses its
-- oldest entries (never the latest) through its order index; an agent without a default branch
-- takes the entry's. The agent as it is now; no row: the agent is gone, and nothing is written.
create function record_agent_entry(entry jsonb, history_limit integer) returns setof agents language plpgsql as $fn$
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
    default_branch = coalesce(default_branch, entry->>'branch')
  where id = entry_agent
  returning * into agent;
  if agent.history > history_limit then
    with gone as (
      delete from agent_reports where agent_id = entry_agent and report_id in (
        select report_id from agent_reports where agent_id = entry_agent and report_id is distinct from agent.latest_report_id
        order by created_at collate "C", report_id collate "C" limit agent.history - history_limit)
      returning 1)
    update agents set history = history - (select count(*) from gone) where id = entry_agent returning * into agent;
  end if;
  return next agent;
end $fn$;
`;
