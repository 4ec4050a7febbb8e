/** Entry of the GitHub Action's bundle (action/dist/index.cjs, built by `npm run build`). */
import { commandData } from '../engine/formats/github.ts';
import { runAction } from './github-action.ts';

runAction({ env: process.env, cwd: process.cwd(), stdout: (text) => process.stdout.write(text) }).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stdout.write(`::error title=cardgate::${commandData(String(e instanceof Error ? (e.stack ?? e.message) : e))}\n`);
    process.exitCode = 2;
  },
);
