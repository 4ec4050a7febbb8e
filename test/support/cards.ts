/** A small valid A2A 0.3.0 card for tests that need any valid card (the engine's own cases live in test/engine). */
export const minimalCard = (name = 'Test Agent', description = 'An agent card used by the tests.') => ({
  protocolVersion: '0.3.0',
  name,
  description,
  url: 'https://agent.example.com/a2a',
  version: '1.0.0',
  capabilities: {},
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'echo', name: 'Echo', description: 'Repeats the input.', tags: ['echo'] }],
});
