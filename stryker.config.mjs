// StrykerJS over one folder of src at a time (build/run-mutation.mjs picks it through
// CARDGATE_MUTATION_FOLDER); docs/testing.md says how to run it and records the results.
// The tap runner starts one node process per test file, through tsx like build/run-tests.mjs,
// with the unit tier's guard: the unit-tier files of the folder's tests (no database, no server,
// no browser) and its contract suites on the engines it names, each covering the mutants it reaches.
import { globSync } from 'node:fs';
import { mutationFolders } from './build/mutation-folders.mjs';
import { tierOf } from './build/test-tiers.mjs';

const name = process.env.CARDGATE_MUTATION_FOLDER ?? 'engine';
const folder = mutationFolders[name];
if (folder === undefined) throw new Error(`stryker.config.mjs: no mutation folder ${name} (one of ${Object.keys(mutationFolders).join(', ')})`);
process.env.CARDGATE_TEST_DATABASE_ERROR = 'mutation testing runs without a database';
// The tap runner's test processes inherit this process's environment.
Object.assign(process.env, folder.env ?? {});
const testFiles = [...new Set([...folder.tests.flatMap((glob) => globSync(glob)).filter((file) => tierOf(file) === 'unit'), ...(folder.contract ?? []).flatMap((glob) => globSync(glob))])].sort();

export default {
  testRunner: 'tap',
  plugins: ['@stryker-mutator/tap-runner'],
  tap: {
    testFiles,
    nodeArgs: ['--import', 'tsx', '--import', './build/unit-guard.mjs', '--test-reporter=tap', '{{testFile}}'],
  },
  mutate: folder.mutate,
  coverageAnalysis: 'perTest',
  // One test process at a time: the machine has two cores and other developers on it.
  concurrency: 1,
  timeoutMS: 5000,
  incremental: true,
  incrementalFile: `mutation/${name}.incremental.json`,
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  // Stryker rewrites the named tsconfig's outside paths through TypeScript's JS API, which
  // TypeScript 7 has not; tsx needs no tsconfig, and ours points nowhere outside the sandbox.
  tsconfigFile: '',
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
