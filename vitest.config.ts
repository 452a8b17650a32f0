import { defineConfig } from 'vitest/config';

// The SDK warns that its 2027 releases will need Node 22; this project runs tests on Node 20 on purpose.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    // Handlers build their production dependencies at import; tests pass their own to buildHandler.
    env: { TABLE_NAME: 'unused-by-tests', AWS_REGION: 'local', POWERTOOLS_LOG_LEVEL: 'SILENT' },
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
