// Lint: typescript-eslint with type information, for the mistakes tsc lets through. The rule the
// issue names first is no-floating-promises: a promise nobody awaits or hands to Background can
// reject unseen and end the process (issue 9, defect 1).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'web/dist/**', 'node_modules/**', 'bench/**/results/**'] },
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: { allowDefaultProject: ['web/vite.config.ts'] }, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // node:test's describe and it return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/await-thenable': 'error',
      // Tests read JSON answers as any only on a line that says so.
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // The Hub's code takes undici's values from src/util/undici-lean.ts: undici's index loads
    // fetch and Node's bundled undici too, about 9 MB of RSS (bench/README.md, idle memory).
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts', 'src/**/*.case.ts', 'src/util/undici-lean.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: [{ name: 'undici', message: 'import undici values from src/util/undici-lean.ts (types may come from undici)', allowTypeImports: true }] },
      ],
    },
  },
);
