import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import SlowFirstSequencer from "./test/helpers/slow-first-sequencer.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Most test files spend their time waiting on child processes (the CLI, git, the ast-grep
    // CLI), so even a 2-CPU machine runs two files at once (vitest's default there is one).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The longest files start first, so the workers finish together.
    sequence: { sequencer: SlowFirstSequencer },
    reporters: ["default", "./test/helpers/summary-reporter.ts"],
  },
});
