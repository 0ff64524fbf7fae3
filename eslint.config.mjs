import js from '@eslint/js';
import jupyter from '@jupyter/eslint-plugin';
import prettierRecommended from 'eslint-plugin-prettier/recommended';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/*.d.ts',
      '**/*.js',
      '.venv',
      '.yarn',
      'lib',
      'node_modules',
      'coverage',
      'cibench_lab',
      'tests',
      'ui-tests',
      'bench',
      'docs',
      'src/schema.ts'
    ]
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...jupyter.configs.recommended,
  prettierRecommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      globals: { ...globals.browser },
      parserOptions: {
        project: './tsconfig.test.json',
        tsconfigRootDir: import.meta.dirname
      }
    },
    rules: {
      '@typescript-eslint/naming-convention': [
        'error',
        {
          selector: 'interface',
          format: ['PascalCase'],
          custom: { regex: '^I[A-Z]', match: true }
        }
      ],
      '@typescript-eslint/no-unused-vars': ['warn', { args: 'none' }],
      '@typescript-eslint/no-namespace': 'off',
      '@typescript-eslint/no-floating-promises': 'error',
      curly: ['error', 'all'],
      eqeqeq: 'error',
      'prefer-arrow-callback': 'error',
      // Jupyter's own rules (@jupyter/eslint-plugin) as errors, one aside: the panel, its
      // commands and its keys are what the plugins activate (the sidebar opens with the lab),
      // so loading them later would only delay the first click. Every user-facing string goes
      // through trans (src/i18n.ts): `text` (our DOM builder's, panel/dom.ts) is checked too
      'jupyter/command-described-by': 'error',
      'jupyter/command-id-convention': 'error',
      'jupyter/plugin-description': 'error',
      'jupyter/plugin-id-convention': 'error',
      'jupyter/no-pageconfig-base-url': 'error',
      'jupyter/require-signal-cleanup': 'error',
      'jupyter/prefer-signal-this-arg': 'error',
      'jupyter/require-disposable-ownership': 'error',
      'jupyter/require-disposable-transfer': 'error',
      'jupyter/prefer-lazy-imports': 'off',
      'jupyter/no-untranslated-string': ['error', { checkProperties: ['text'] }]
    }
  },
  {
    // small modules and functions (tests are left to their own length)
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/__tests__/**'],
    rules: {
      'max-lines': [
        'error',
        { max: 400, skipBlankLines: true, skipComments: true }
      ],
      'max-lines-per-function': [
        'error',
        { max: 40, skipBlankLines: true, skipComments: true }
      ]
    }
  },
  {
    files: ['scripts/**/*.mjs'],
    languageOptions: { globals: { ...globals.node } }
  },
  {
    files: ['src/__tests__/**/*.ts'],
    languageOptions: { globals: { ...globals.jest, ...globals.node } },
    // the tests' fixtures (task titles, labels) are data, not the lab's words
    rules: { 'jupyter/no-untranslated-string': 'off' }
  }
);
