// ESLint with typescript-eslint over every TypeScript file; formatting is Prettier's (npm run format).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      '.data/',
      'test-results/',
      'playwright-report/',
      '.test-results/',
      '.bench/',
      'test/.generated/',
      'bench/.entry-*',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      // `any` is allowed in tests, where JSON answers are read field by field; src and the service use unknown.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  { files: ['test/**', 'bench/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  {
    // A committed `.only` narrows a run to one test and CI stays green; a `.skip` hides a test for good. The
    // runners refuse `.only` too (forbidOnly, node:test without --test-only); this says so before a commit.
    files: ['test/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'MemberExpression[property.name=/^(only|skip|fixme|todo)$/]:matches([object.name=/^(describe|context|suite|it|test)$/], [object.property.name=/^(describe|serial|parallel|step)$/])',
          message:
            'No .only, .skip, .fixme or .todo in a committed test: it narrows or hides the run. Fix or delete the test (and update test/counts.json).',
        },
        {
          selector: 'CallExpression[callee.name=/^(xit|xdescribe|xcontext|xspecify)$/]',
          message: 'No x-prefixed (skipped) mocha tests in a committed test: fix or delete it.',
        },
        {
          // node:test's options ({ only: true }, { skip: 'why' }) and its test context's t.skip() / this.skip() in mocha.
          selector:
            ':matches(CallExpression[callee.name=/^(describe|suite|it|test)$/] > ObjectExpression > Property[key.name=/^(only|skip|todo)$/], CallExpression[callee.property.name=/^(skip|todo)$/]:matches([callee.object.name="t"], [callee.object.type="ThisExpression"]))',
          message: 'No skipped or focused test in a committed test: fix or delete it (and update test/counts.json).',
        },
      ],
    },
  },
);
