// Preloaded by the unit tier (build/run-tests.mjs --tier unit): a unit test starts no process
// (no server, no browser, no built binary) and reaches no database. A test file that does is
// refused here with the reason, so it cannot pass as a unit test: it belongs to another tier
// (build/test-tiers.mjs).
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
  childProcess[name] = (command) => {
    throw new Error(`the unit tier starts no process (${name} ${command}): declare this test file in the integration or e2e tier (build/test-tiers.mjs)`);
  };
}
syncBuiltinESMExports();
