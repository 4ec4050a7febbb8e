// StrykerJS over one folder of src at a time (build/run-mutation.mjs picks it through
// CARDGATE_MUTATION_FOLDER); docs/testing.md says how to run it and records the results.
// The tap runner starts one node process per test file, through tsx like build/run-tests.mjs,
// with the unit tier's guard: only unit-tier files of the folder's test directory run (no
// database, no server, no browser), each covering the mutants it reaches.
import { globSync } from 'node:fs';
import { mutationFolders } from './build/mutation-folders.mjs';
import { tierOf } from './build/test-tiers.mjs';

const name = process.env.CARDGATE_MUTATION_FOLDER ?? 'engine';
const folder = mutationFolders[name];
if (folder === undefined) throw new Error(`stryker.config.mjs: no mutation folder ${name} (one of ${Object.keys(mutationFolders).join(', ')})`);
process.env.CARDGATE_TEST_DATABASE_ERROR = 'mutation testing runs unit-tier files only: no database';

export default {
  testRunner: 'tap',
  plugins: ['@stryker-mutator/tap-runner'],
  tap: {
    testFiles: globSync(folder.tests).filter((file) => tierOf(file) === 'unit').sort(),
    nodeArgs: ['--import', 'tsx', '--import', './build/unit-guard.mjs', '--test-reporter=tap', '{{testFile}}'],
  },
  mutate: folder.mutate,
  coverageAnalysis: 'perTest',
  // One test process at a time: the machine has two cores and other developers on it.
  concurrency: 1,
  timeoutMS: 10000,
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
