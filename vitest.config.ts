import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Integration tests share one Postgres and one NATS; each file gets its own database and
    // subject namespace (libs/testkit), so files may run in parallel on the two cores.
    include: [
      'libs/*/test/**/*.test.ts',
      'libs/*/src/**/*.test.ts',
      'services/*/test/**/*.test.ts',
      'services/*/src/**/*.test.ts',
      'web/test/**/*.test.ts',
      'scripts/test/**/*.test.ts',
      'deploy/test/**/*.test.ts',
    ],
    pool: 'forks',
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll gives up after 1 s by default; a loaded CI machine can take longer than that to
    // answer a click (seen: a claim's alert after 3.8 s). Polls still return as soon as they pass.
    expect: { poll: { timeout: 10_000 } },
    reporters: ['default'],
    // Builds web/dist once (only when its sources changed) before browser tests need it.
    globalSetup: ['web/test/support/global-setup.ts'],
  },
});
