import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 10_000 } },
      { test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 30_000 } },
      // Real headless Chromium (Debian's chromium) looking at the page hark serves: `npm run test:browser`.
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 30_000,
          fileParallelism: false,
        },
      },
      // A real MQTT broker (Debian's mosquitto and mosquitto-clients) between hark and what Home Assistant does: `npm run test:home`.
      {
        test: {
          name: 'home',
          include: ['test/home/**/*.test.ts'],
          testTimeout: 90_000,
          hookTimeout: 30_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'audio',
          include: ['test/audio/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
