import js from '@eslint/js'
import react from 'eslint-plugin-react'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'

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
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['**/tests/**'], message: 'App code must not import test tooling.' }],
        },
      ],
    },
  },
  {
    files: ['tests/**', '*.config.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // The production server entry and other plain ESM scripts run on Node.
    files: ['*.js', '**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
)
