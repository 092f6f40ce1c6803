/** Unit shard 1 of 2 (test/support/unitShard.ts): `npm run test:unit` and `npm test` run both, in parallel. */
import { runUnitShard } from '../support/unitShard.js';

runUnitShard(0, 2);
