import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Most test files spend their time waiting on child processes (the CLI, git, the ast-grep
    // CLI), so even a 2-CPU machine runs two files at once (vitest's default there is one).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ["default", "./test/helpers/summary-reporter.ts"],
  },
});
