// The folders mutation testing covers (stryker.config.mjs, build/run-mutation.mjs): the code each
// mutates and the test files that may kill its mutants (of these, the unit tier's only).
export const mutationFolders = {
  engine: { mutate: ['src/engine/**/*.ts'], tests: 'test/engine/**/*.test.ts' },
  // The memory and file engines; the PostgreSQL one needs a database, which the unit tier has not.
  // Stryker 10's instrumenter crashes on an update of a non-null assertion (`--ends[pick]!` in
  // memory/agents.ts), so that file is left out (docs/testing.md).
  store: { mutate: ['src/store/memory/**/*.ts', 'src/store/file/**/*.ts', '!src/store/memory/agents.ts'], tests: 'test/store/**/*.test.ts' },
  features: { mutate: ['src/features/**/*.ts'], tests: 'test/features/**/*.test.ts' },
};
