/** Moved to test/support/fakeNodeApi.ts (issue 23); this forwarding line keeps test/actors' imports unchanged until the merge folds them. */
export * from '../../support/fakeNodeApi.js';
