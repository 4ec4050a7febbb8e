/**
 * The schema of the PostgreSQL engine, as numbered migrations applied in order (see migrate.ts).
 * A migration is never edited once released: a change is a new one. The SQL lives in this module
 * (the functions of migration 17 in agent-functions.ts), not in .sql files, so that it is bundled
 * into the single binary.
 *
 * Timestamps the service only shows are kept as the text the record carries (`created_at`), so a
 * record reads back exactly as it was put; the ones queried are epoch milliseconds (`*_ms`,
 * `reset_at`, `lease_until`): null when the record's text is no date, which retention then never
 * selects, as the file engine never does.
 */
import { AGENT_FUNCTIONS_SQL } from './agent-functions.ts';
import { AGENT_LANES_SQL } from './agent-lanes.ts';
import { AGENT_VERDICT_SQL } from './agent-verdict.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'accounts, api keys, counters, usage, reports, jobs, meta',
    sql: `
create table accounts (
  id text primary key,
  name text not null,
  plan text not null,
  created_at text not null
);

-- The key itself is never stored: its SHA-256 finds it.
create table api_keys (
  id text primary key,
  account_id text not null,
  name text not null,
  hash text not null unique,
  hint text not null,
  created_at text not null,
  last_used_at text,
  allowed_ips jsonb not null
);
create index api_keys_account on api_keys (account_id);

-- Fixed windows (daily quotas, webhook rate windows); a row whose reset_at has passed counts as absent.
create table counters (
  key text primary key,
  count bigint not null,
  reset_at bigint not null
);
create index counters_reset_at on counters (reset_at);

create table usage (
  account_id text not null,
  day text not null,
  count bigint not null,
  primary key (account_id, day)
);
create index usage_day on usage (day);

-- body: the report as the file engine writes it (one JSON text, the request and result verbatim);
-- listing reads the other columns only. seq keeps the order reports were first put in.
create table reports (
  id text primary key,
  seq bigint generated always as identity unique,
  kind text not null,
  created_at text not null,
  created_ms bigint,
  account_id text,
  alias text,
  alias_scope text,
  version text,
  valid boolean,
  score double precision,
  body text not null
);
create index reports_created_ms on reports (created_ms);
create index reports_account on reports (account_id, seq);

-- Which report an alias (a GitHub sha) finds, and the scope that may move it.
create table report_aliases (
  alias text primary key,
  report_id text not null,
  scope text
);
create index report_aliases_report on report_aliases (report_id);

-- head: the job's JSON without request, status, attempts and lease (those are the columns);
-- request: its request's JSON, read only when the job is run (a status read never parses it).
create table jobs (
  id text primary key,
  status text not null,
  created_at text not null,
  updated_at text not null,
  updated_ms bigint,
  lease_owner text,
  lease_until bigint,
  attempts integer,
  head text not null,
  request text not null
);
-- Claims take the oldest first: by created_at, then id, compared as the code units JavaScript compares.
create index jobs_unfinished on jobs (created_at collate "C", id collate "C") where status in ('queued', 'processing');
create index jobs_finished on jobs (updated_ms) where status in ('completed', 'failed');

create table meta (
  key text primary key,
  value text not null
);
`,
  },
  {
    version: 2,
    name: 'paged listings: report agent name and error count, sort indexes',
    sql: `
-- Listed beside the verdict; filled for reports put from now on (older ones list none).
alter table reports add column agent_name text, add column error_count integer;

-- One index per sort of the paged listings, in the order the listing reads them (see SORT_KEYS in
-- postgres-store.ts, whose expressions these repeat exactly): keyset paging walks one forwards or
-- backwards. Text compares as the code units JavaScript compares; names ignore ASCII case.
create index accounts_by_name on accounts ((translate(name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') collate "C"), (id collate "C"));
create index accounts_by_plan on accounts ((plan collate "C"), (id collate "C"));
create index accounts_by_created on accounts ((created_at collate "C"), (id collate "C"));
create index reports_by_created on reports ((created_at collate "C"), (id collate "C"));
create index reports_by_score on reports ((coalesce(score, -1)), (id collate "C"));
create index reports_by_errors on reports ((coalesce(error_count, -1)), (id collate "C"));
create index reports_by_agent on reports ((translate(coalesce(agent_name, ''), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') collate "C"), (id collate "C"));
`,
  },
  {
    version: 3,
    name: 'trusted keys',
    sql: `
-- jwk: the JSON text as put (it reads back byte for byte). One key per kid in each scope: an
-- account's keys, or the global ones (account_id null, told apart from any account id).
create table trust_keys (
  id text primary key,
  kid text not null,
  account_id text,
  jwk text not null,
  jku text,
  thumbprint text not null,
  added_at text not null,
  revoked_at text
);
create unique index trust_keys_scope_kid on trust_keys ((account_id is null), (coalesce(account_id, '')), kid);
create index trust_keys_account on trust_keys (account_id);
`,
  },
  {
    version: 4,
    name: 'report bodies stored uncompressed',
    sql: `
-- A body (a card and its result, a few KB of JSON) compresses by about a fifth only, and
-- compressing it took about a fifth of the database's CPU time per validation: store it as it
-- comes (still out of line, so the reports table itself stays small for listings).
alter table reports alter column body set storage external;
`,
  },
  {
    version: 5,
    name: 'trigram indexes for the listings\' search',
    sql: `
-- The paged listings' q ("contains", ASCII letters in either case) as LIKE '%q%' on the
-- lower-cased expressions the listing searches (see pageRows in postgres-store.ts, which repeats
-- them character for character): pg_trgm's GIN indexes find the few rows that can match instead
-- of a scan of every report. pg_trgm ships with PostgreSQL and is a trusted extension (a
-- database owner may create it); where it cannot be created the listing still answers, by a scan.
do $$
begin
  create extension if not exists pg_trgm;
exception when others then
  raise notice 'pg_trgm cannot be created (%): the listings search without an index', sqlerrm;
end $$;
do $$
begin
  if exists (select 1 from pg_extension where extname = 'pg_trgm') then
    create index reports_agent_trgm on reports using gin ((translate(coalesce(agent_name, ''), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')) gin_trgm_ops);
    create index reports_id_trgm on reports using gin ((translate(id, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')) gin_trgm_ops);
    create index accounts_name_trgm on accounts using gin ((translate(name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')) gin_trgm_ops);
    create index accounts_id_trgm on accounts using gin ((translate(id, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')) gin_trgm_ops);
  end if;
end $$;
`,
  },
  {
    version: 6,
    name: 'distinct report agent names for the listings\' search',
    sql: `
-- q over report agent names is looked up among the distinct names, lower-cased as the name sort's
-- index (reports_by_agent) lower-cases them, then their reports through that index (see
-- agentNameMatches in report-statements.ts). Trigram lists over every report's name held nearly every
-- report for a common trigram ("age", "ent"): a name made of them cost ~100 ms to look up at a
-- million reports; among tens of thousands of names it costs a few. Kept by a trigger, so every
-- way a report is written (put, consume, job, import) adds its name; never emptied by pruning (a
-- name whose reports are gone only costs the look-up a row, and removing one while a report with
-- it is being written could hide that report from the search).
create table report_agent_names (name text primary key);
create function report_agent_names_add() returns trigger language plpgsql as $fn$
begin
  insert into report_agent_names (name) values (translate(new.agent_name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')) on conflict do nothing;
  return null;
end $fn$;
-- The trigger before the names already stored: creating it locks out writes to reports until this
-- transaction ends, so no report is written between the copy and the trigger (its name would be missed).
create trigger reports_agent_names after insert or update of agent_name on reports
  for each row when (new.agent_name is not null) execute function report_agent_names_add();
insert into report_agent_names
  select distinct translate(agent_name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') from reports where agent_name is not null;
-- The reports' own name trigrams are no longer read (and every report written paid for them).
drop index if exists reports_agent_trgm;
do $$
begin
  if exists (select 1 from pg_extension where extname = 'pg_trgm') then
    create index report_agent_names_trgm on report_agent_names using gin (name gin_trgm_ops);
  end if;
end $$;
analyze report_agent_names;
`,
  },
  {
    version: 7,
    name: 'accounts\' rulesets',
    sql: `
-- One ruleset per account at most: its text as the administrator sent it (YAML or JSON) and the
-- hash of its canonical form, which results name and the compiled form is cached under.
create table account_rulesets (
  account_id text primary key,
  text text not null,
  hash text not null,
  updated_at text not null
);
`,
  },
  {
    version: 8,
    name: 'agents and their histories',
    sql: `
-- An agent per (account, name), made by the first keyed validation that names it (the unique
-- pair makes concurrent first validations agree on one); its latest report's entry and its
-- counts kept on the row, so that a listing or a badge reads no report.
create table agents (
  id text primary key,
  account_id text not null,
  name text not null,
  first_seen text not null,
  last_seen text not null,
  latest_report_id text,
  latest jsonb,
  reports integer not null default 0,
  valid integer not null default 0,
  invalid integer not null default 0,
  badge_token text not null,
  unique (account_id, name)
);
-- Retention keeps the reports that are an agent's latest: it asks this index.
create index agents_latest_report on agents (latest_report_id) where latest_report_id is not null;
-- The listing's sorts (see postgres/agents.ts, which writes the same expressions).
create index agents_by_name on agents ((translate(name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') collate "C"), (id collate "C"));
create index agents_by_first_seen on agents ((first_seen collate "C"), (id collate "C"));
create index agents_by_last_seen on agents ((last_seen collate "C"), (id collate "C"));
create index agents_by_reports on agents (reports, (id collate "C"));
-- One row per report in an agent's history: the timeline, and the baseline "branch:<name>".
create table agent_reports (
  agent_id text not null,
  report_id text not null,
  created_at text not null,
  valid boolean not null,
  score double precision not null,
  errors integer not null,
  warnings integer not null,
  branch text,
  primary key (agent_id, report_id)
);
create index agent_reports_timeline on agent_reports (agent_id, (created_at collate "C") desc, (report_id collate "C") desc);
create index agent_reports_branch on agent_reports (agent_id, branch, (created_at collate "C") desc, (report_id collate "C") desc) where branch is not null;
`,
  },
  {
    version: 9,
    name: 'monitors',
    sql: `
-- Published cards validated on a schedule. A run is claimed by moving next_run_at one interval on
-- under a lease, in one statement (see PgMonitors.claimMonitor). secret: the events' HMAC key, kept
-- as it is because signing needs it. last_run: the last run's summary as JSON text.
create table monitors (
  id text primary key,
  account_id text not null,
  url text not null,
  interval_seconds integer not null,
  notify_url text,
  secret text not null,
  paused boolean not null,
  created_at text not null,
  next_run_at bigint not null,
  lease_owner text,
  lease_until bigint,
  failures integer not null,
  state text not null,
  baseline_report_id text,
  last_run text,
  last_success_at text
);
create index monitors_account on monitors (account_id, id collate "C");
create index monitors_due on monitors (next_run_at) where not paused;
`,
  },
  {
    version: 10,
    name: 'audit log',
    sql: `
-- Every state-changing admin action, append-only (removed by retention only). The record is kept as
-- the JSON text it was appended as; beside it the columns its listing filters by. Times are ISO
-- text in UTC (toISOString), which sorts as text in the C collation.
create table audit_log (
  id text primary key,
  at text not null,
  actor_kind text not null,
  actor_label text not null,
  actor_email text,
  action text not null,
  target_id text,
  record text not null
);
create index audit_log_newest on audit_log (at collate "C" desc, id collate "C" desc);
`,
  },
  {
    version: 11,
    name: 'keys that expire and rotate',
    sql: `
-- expires_at: ISO text, null = never (the keys made before this migration keep none). A rotated
-- key keeps its id; the secret it replaced finds it too, by previous_hash, until previous_expires_at.
alter table api_keys add column expires_at text, add column previous_hash text, add column previous_expires_at text;
create index api_keys_previous_hash on api_keys (previous_hash) where previous_hash is not null;
`,
  },
  {
    version: 12,
    name: 'sessions of people signed in through OpenID Connect',
    sql: `
-- The id is the SHA-256 of the cookie's opaque value (never stored). Times are ISO 8601 text, compared
-- as text as every engine does. Revoked, idle and expired rows are deleted by the hourly upkeep.
create table sessions (
  id text primary key,
  subject text not null,
  email text,
  role text not null check (role in ('viewer', 'editor', 'admin')),
  created_at text not null,
  last_seen_at text not null,
  idle_until text not null,
  expires_at text not null,
  revoked_at text
);
create index sessions_by_subject on sessions (subject);
`,
  },
  {
    version: 13,
    name: 'trigram indexes for the agents listing\'s search',
    sql: `
-- GET /admin/api/agents?q= as the accounts listing's (migration 5): LIKE '%q%' on the lower-cased
-- name and id (see LISTING in agents.ts, which writes the same expressions), found through pg_trgm's
-- GIN indexes instead of a scan of every agent (an account may have agents.maxPerAccount of them).
-- Where pg_trgm could not be created, the listing still answers, by a scan.
do $$
begin
  if exists (select 1 from pg_extension where extname = 'pg_trgm') then
    create index agents_name_trgm on agents using gin ((translate(name, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')) gin_trgm_ops);
    create index agents_id_trgm on agents using gin ((translate(id, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')) gin_trgm_ops);
  end if;
end $$;
`,
  },
  {
    version: 14,
    name: 'the size of each agent\'s history',
    sql: `
-- How many entries an agent's history holds now (agents.reports counts every report it recorded,
-- retention or not): a new entry trims the oldest only while the history is over its bound, and
-- by the history's order index, instead of counting or walking 1000 entries on every report.
alter table agents add column history integer not null default 0;
update agents set history = (select count(*) from agent_reports where agent_reports.agent_id = agents.id);
`,
  },
  {
    version: 15,
    name: 'monitors that record changes, not polls; monitors that probe',
    sql: `
-- An agent's last check (a report recorded, or a monitor's run that found its card unchanged and
-- stored none) and the unchanged runs since its latest report; a monitor's live probes.
alter table agents add column last_checked_at text;
alter table agents add column unchanged_runs integer not null default 0;
alter table monitors add column live boolean not null default false;
`,
  },
  {
    version: 16,
    name: 'default branches; monitors that name their agent',
    sql: `
-- The branch an agent's badge and history show unless asked for another: each agent made before
-- takes the branch of its oldest entry that names one, as recording it would have set it. The
-- entries that name no branch (a monitor's runs) count as the default branch's, read through
-- their own index as the named ones are through agent_reports_branch.
alter table agents add column default_branch text;
update agents set default_branch = (
  select branch from agent_reports r where r.agent_id = agents.id and r.branch is not null
  order by r.created_at collate "C", r.report_id collate "C" limit 1);
create index agent_reports_unnamed on agent_reports (agent_id, (created_at collate "C") desc, (report_id collate "C") desc) where branch is null;
-- The agent a monitor's runs join, when it names one (else its URL names it).
alter table monitors add column agent text;
`,
  },
  { version: 17, name: 'an agent joined, and a history entry recorded, each in one statement', sql: AGENT_FUNCTIONS_SQL },
  { version: 18, name: 'the badge\'s verdict kept on each agent, for the listing\'s filter', sql: AGENT_VERDICT_SQL },
  { version: 19, name: 'the lanes of the agents\' histories, for the listing\'s branch filter and the default branch\'s latest', sql: AGENT_LANES_SQL },
  {
    version: 20,
    name: 'the monitors\' and the sessions\' listings in their pages\' order',
    sql: `
-- GET /admin/api/monitors of every account walks the ids in the C collation (one account's:
-- monitors_account); GET /admin/api/sessions walks the unrevoked sessions newest first, of everyone
-- or of one person, so that a page reads about its own rows, however many sessions are kept.
create index monitors_in_order on monitors ((id collate "C"));
create index sessions_newest on sessions ((created_at collate "C") desc, (id collate "C") desc) where revoked_at is null;
create index sessions_of_subject on sessions (subject, (created_at collate "C") desc, (id collate "C") desc) where revoked_at is null;
`,
  },
];
