import js from '@eslint/js'
import react from 'eslint-plugin-react'
import reactHooks from 'eslint-plugin-react-hooks'
import simpleImportSort from 'eslint-plugin-simple-import-sort'
import globals from 'globals'
import tseslint from 'typescript-eslint'

/** An app folder, by the ~/ alias or a relative path. */
const folder = (name) => [`~/${name}`, `~/${name}/**`, `**/${name}/**`]

/** no-restricted-imports options for app/: never tests/ or tools/, nor `forbidden`. */
function appImports(forbidden = [], message = '') {
  const patterns = [
    {
      group: ['**/tests', '**/tests/**', '**/tools', '**/tools/**'],
      message: 'App code must not import test and development tooling (tests/, tools/).',
    },
  ]
  return { patterns: forbidden.length ? [...patterns, { group: forbidden, message }] : patterns }
}

export default tseslint.config(
  {
    ignores: [
      'build/**',
      'node_modules/**',
      '.data/**',
      '.scratch/**',
      'test-results/**',
      'playwright-report/**',
      'bench-results/**',
      '.build-*/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // One import order, fixed by `npm run format`: node:, packages, `~/`, relative.
  {
    files: ['**/*.{ts,tsx,js}'],
    plugins: { 'simple-import-sort': simpleImportSort },
    rules: {
      'simple-import-sort/imports': [
        'error',
        { groups: [['^\\u0000'], ['^node:'], ['^@?\\w'], ['^~/'], ['^\\.']] },
      ],
      'simple-import-sort/exports': 'error',
    },
  },
  {
    files: ['**/*.{ts,tsx}'],
    plugins: { react, 'react-hooks': reactHooks },
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    settings: { react: { version: 'detect' } },
    rules: {
      ...react.configs.recommended.rules,
      ...react.configs['jsx-runtime'].rules,
      ...reactHooks.configs.recommended.rules,
      'react/prop-types': 'off',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  // app/ never imports tests/ or tools/ (the local stack's README, "What it imports").
  { files: ['app/**/*.{ts,tsx}'], rules: { 'no-restricted-imports': ['error', appImports()] } },
  // The layers of app/ (docs/architecture.md, "Layers"): the shared helpers import no feature,
  // auth does not import billing, billing does not read through account; tests may cross them.
  // A later block replaces the rule's options for its files, hence appImports() in each.
  {
    files: ['app/lib/**/*.{ts,tsx}'],
    ignores: ['app/**/*.test.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        appImports(
          ['auth', 'billing', 'subscriptions', 'account', 'profile', 'notifications', 'contact']
            .concat(['routes', 'components'])
            .flatMap(folder),
          'app/lib holds what features share: it imports no feature, route or component.',
        ),
      ],
    },
  },
  {
    files: ['app/auth/**/*.{ts,tsx}'],
    ignores: ['app/**/*.test.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        appImports(folder('billing'), 'Auth does not import billing: billing builds on auth.'),
      ],
    },
  },
  {
    files: ['app/billing/**/*.{ts,tsx}'],
    ignores: ['app/**/*.test.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        appImports(
          folder('account'),
          'Billing does not read through account: account builds on billing.',
        ),
      ],
    },
  },
  // One logger (app/lib/server/logger.server.ts): no console in app/ but the command-line
  // scripts, whose console output is their interface.
  {
    files: ['app/**/*.{ts,tsx}'],
    ignores: ['app/**/*.cli.ts', 'app/commands.server.ts'],
    rules: { 'no-console': 'error' },
  },
  {
    files: ['tests/local-stack/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '**/app',
                '**/app/**',
                '~',
                '~/**',
                '**/setup/**',
                '**/tools/**',
                '**/integration/**',
                '**/e2e/**',
              ],
              message:
                'The local stack is a package of its own and imports nothing outside its folder: take what it needs (plan catalogue, keys) as options or from its own fixtures.',
            },
          ],
        },
      ],
    },
  },
  {
    // The production server entry and other plain ESM scripts run on Node.
    files: ['*.js', '**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
)
