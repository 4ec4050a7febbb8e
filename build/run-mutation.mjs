// Mutation testing (StrykerJS, stryker.config.mjs) by hand or nightly, not in .ci/run: one folder
// after the other, niced. `npm run test:mutation` runs engine, store and features;
// `npm run test:mutation -- engine` one folder; arguments after the folder names go to Stryker
// (e.g. `-- engine --mutate src/engine/score.ts` for one file). Each folder keeps its results in
// mutation/<folder>.incremental.json (not committed), so a later run only redoes changed code.
// Stryker is installed on first use into .stryker-tools/ (ignored), at the versions below, not
// as a devDependency: its own dependencies ask for a newer Node than the one `npm ci` may run on.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { mutationFolders } from './mutation-folders.mjs';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const named = args.filter((arg) => arg in mutationFolders);
const rest = args.filter((arg) => !(arg in mutationFolders));
const folders = named.length > 0 ? named : Object.keys(mutationFolders);
// The tap runner starts `node` from the PATH: the pinned one, as npm scripts have it.
const path = `${join(root, 'node_modules/.bin')}:${dirname(process.execPath)}:${process.env.PATH}`;
const STRYKER = ['@stryker-mutator/core@10.0.0', '@stryker-mutator/tap-runner@10.0.0'];
const tools = join(root, '.stryker-tools');
const stryker = join(tools, 'node_modules/@stryker-mutator/core/bin/stryker.js');
if (!existsSync(stryker)) {
  console.log(`run-mutation: installing ${STRYKER.join(' ')} into .stryker-tools/`);
  const install = spawnSync('npm', ['install', '--prefix', tools, '--no-save', '--no-audit', '--no-fund', '--save-exact', ...STRYKER], { cwd: root, stdio: 'inherit', env: { ...process.env, PATH: path } });
  if (install.status !== 0) process.exit(install.status ?? 1);
}

for (const folder of folders) {
  const started = Date.now();
  const run = spawnSync(
    'nice',
    ['-n', '19', process.execPath, stryker, 'run', 'stryker.config.mjs', ...rest],
    { cwd: root, stdio: 'inherit', env: { ...process.env, PATH: path, CARDGATE_MUTATION_FOLDER: folder } },
  );
  console.log(`run-mutation: ${folder} took ${Math.round((Date.now() - started) / 60000)} min`);
  if (run.status !== 0) process.exit(run.status ?? 1);
}
