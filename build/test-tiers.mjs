// The test tiers. Every test file is in exactly one: the integration and e2e files are listed
// here (paths from the repository root), every other test file is a unit test.
// - unit: no process started (no server, browser or binary) and no database: the unit run
//   preloads build/unit-guard.mjs, which refuses a child process, and starts no PostgreSQL,
//   so a file listed nowhere that needs either fails there instead of passing as a unit test;
// - integration: real server processes (test/support/server.ts), PostgreSQL, other processes,
//   real worker threads, and the long engine sweeps (the official-schema conformance, the fuzz,
//   the linear-time checks on 1 MiB inputs): each runs the engine thousands of times, and the
//   unit tier must stay under a minute on a 2-core machine;
// - e2e: a browser (test/support/browser.ts) or the built binary / action bundle.
// test/tiers.test.ts checks that each listed file exists and is listed once.

export const tierNames = ['unit', 'integration', 'e2e'];

export const declaredTiers = {
  integration: [
    'test/api/answer-bounds.test.ts',
    'test/api/blackbox.test.ts',
    'test/api/crash.test.ts',
    'test/api/formats.test.ts',
    'test/api/golden-answers.test.ts',
    'test/api/http-fuzz.test.ts',
    'test/api/http-parser.test.ts',
    'test/api/metrics.test.ts',
    'test/api/openapi.test.ts',
    'test/api/report-diff.test.ts',
    'test/api/signatures.test.ts',
    'test/api/trust-keys.test.ts',
    'test/cli/conventions.test.ts',
    'test/cli/export-url.test.ts',
    'test/cli/import-servable.test.ts',
    'test/cli/migrate.test.ts',
    'test/cli/patterns.test.ts',
    'test/cli/reads.test.ts',
    'test/cli/rulesets.test.ts',
    'test/cli/serve-start-up.test.ts',
    'test/cli/serve.test.ts',
    'test/cli/sign-edit.test.ts',
    'test/cli/sign.test.ts',
    'test/cli/transfer.test.ts',
    'test/cli/trust.test.ts',
    'test/cli/validate.test.ts',
    'test/engine/conformance.test.ts',
    'test/engine/fuzz.test.ts',
    'test/engine/redos.test.ts',
    'test/engine/rule-complexity.test.ts',
    'test/features/limits/answer-size.test.ts',
    'test/features/limits/blackbox.test.ts',
    'test/features/limits/nesting.test.ts',
    'test/features/limits/sidecar.test.ts',
    'test/features/validation/time-limit.test.ts',
    'test/features/webhooks/blackbox.test.ts',
    'test/features/webhooks/lost-report.test.ts',
    'test/runtime.test.ts',
    'test/server.test.ts',
    'test/store/blackbox.test.ts',
    'test/store/contract/accounts.test.ts',
    'test/store/contract/counters.test.ts',
    'test/store/contract/jobs.test.ts',
    'test/store/contract/keys.test.ts',
    'test/store/contract/lifecycle.test.ts',
    'test/store/contract/meta.test.ts',
    'test/store/contract/report-columns.test.ts',
    'test/store/contract/reports.test.ts',
    'test/store/contract/trust-keys.test.ts',
    'test/store/durability.test.ts',
    'test/store/export-snapshot.test.ts',
    'test/store/file-store.test.ts',
    'test/store/postgres-crash.test.ts',
    'test/store/postgres-outage.test.ts',
    'test/store/postgres-serve.test.ts',
    'test/store/postgres.test.ts',
    'test/store/two-instances.test.ts',
    'test/validator/pool.test.ts',
  ],
  e2e: [
    'test/action/github-action.test.ts',
    'test/api/docs-page.test.ts',
    'test/cli/warm-up.test.ts',
    'test/dashboard/browser.test.ts',
    'test/dashboard/harness.test.ts',
    'test/dashboard/scale.test.ts',
    'test/dashboard/sign-in.test.ts',
    'test/dashboard/trust-keys.test.ts',
    'test/deploy/deploy.test.ts',
    'test/deploy/gitlab.test.ts',
    'test/pages/browser.test.ts',
    'test/pages/landing-form.test.ts',
  ],
};

/** The tier of a test file (a path from the repository root). */
export const tierOf = (file) => tierNames.find((tier) => declaredTiers[tier]?.includes(file)) ?? 'unit';
