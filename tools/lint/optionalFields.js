// An optional field is left out, not written as undefined, with src/lib/defaults.ts
// (`definedOnly`, `ifDefined`, `when`), never as a conditional spread with an empty branch,
// `...(x !== undefined ? { x } : {})`: issue 23 found ~170 of them, each its own small puzzle of
// which test (undefined or falsy) it meant. test/lint/optionalFields.test.ts shows the rule.

/** A spread of a conditional one of whose branches is `{}`, whatever the test and the order. */
export const CONDITIONAL_SPREAD = 'ObjectExpression > SpreadElement > ConditionalExpression > ObjectExpression[properties.length=0]';

/** The flat-config block. */
export function optionalFieldRules() {
  return [
    {
      files: ['src/**/*.ts', 'examples/**/*.ts'],
      rules: {
        'no-restricted-syntax': ['error', {
          selector: CONDITIONAL_SPREAD,
          message: 'Write an optional field with definedOnly, ifDefined or when (src/lib/defaults.ts), not a conditional spread with an empty branch.',
        }],
      },
    },
  ];
}
