import { testApp, postJson } from './test/helpers/app.ts';
import { minimalCard } from './test/helpers/cards.ts';
const { app } = testApp();
const r = await app.request('/v1/validate', postJson({ agent_card: minimalCard() }));
console.log(r.status, [...r.headers]);
const r2 = await app.request('/v1/rules');
console.log(r2.status, [...r2.headers]);
