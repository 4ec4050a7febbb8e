// The folders mutation testing covers (stryker.config.mjs, build/run-mutation.mjs): the code each
// mutates, the test files that may kill its mutants (of these, the unit tier's, plus `contract`
// files run on the engines `env` names) and the environment those tests run in.
export const mutationFolders = {
  engine: { mutate: ['src/engine/**/*.ts'], tests: ['test/engine/**/*.test.ts'] },
  // The memory and file engines; the PostgreSQL one needs a database, which the run has not. The
  // store contract's suites (integration tier, for their PostgreSQL runs) run on the other two.
  store: {
    mutate: ['src/store/memory/**/*.ts', 'src/store/file/**/*.ts'],
    tests: ['test/store/**/*.test.ts'],
    contract: ['test/store/contract/*.test.ts'],
    env: { CARDGATE_CONTRACT_ENGINES: 'MemoryStore,FileStore' },
  },
  // Features are reached through their own tests and through the API's in-process ones.
  features: { mutate: ['src/features/**/*.ts'], tests: ['test/features/**/*.test.ts', 'test/api/**/*.test.ts'] },
};
