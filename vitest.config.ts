import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import SlowFirstSequencer from "./test/helpers/slow-first-sequencer.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Most test files spend part of their time waiting on child processes (the CLI, git, the
    // ast-grep CLI, npm) and timeouts, so one file more than there are CPUs keeps them busy (vitest's
    // default is one fewer): on 2 CPUs three files at once finish the suite sooner than two.
    maxWorkers: availableParallelism() + 1,
    // The longest files start first, so the workers finish together.
    sequence: { sequencer: SlowFirstSequencer },
    reporters: ["default", "./test/helpers/summary-reporter.ts"],
  },
});
