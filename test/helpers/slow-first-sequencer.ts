import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Files that take far longer than the rest (a real pre-commit hook install, large generated
 * trees, oracle suites), longest first. The workers finish together only when the long files
 * start first; vitest orders by the durations of its last run where it has them and otherwise
 * by file size, which in a fresh clone starts a short file that installs a hook environment last.
 * A path that no longer exists is ignored.
 */
export const SLOW_FILES = [
  "test/precommit/real-client.test.ts",
  "test/tools/jscodeshift.test.ts",
  "test/reliability/recover-kill.test.ts",
  "test/differential/generative.test.ts",
  "test/tools/jscodeshift-react-codemod.test.ts",
  "test/differential/rule-generative.test.ts",
  "test/scale/bounded-memory.test.ts",
  "test/cache/cli.test.ts",
  "test/campaign/pull-request.test.ts",
  "test/reliability/never-hang.test.ts",
  "test/precommit/hooks.test.ts",
  "test/e2e/modes.test.ts",
  "test/workspace/fault-injection.test.ts",
  "test/e2e/run-custom.test.ts",
  "test/scale/bounded-merge.test.ts",
  "test/campaign/workflow.test.ts",
  "test/tools/ast-scan-diff.test.ts",
  "test/reliability/scale.test.ts",
];

/** The files of SLOW_FILES first, in that order; the rest as vitest orders them. */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const rank = (spec: TestSpecification) => SLOW_FILES.indexOf(path.relative(root, spec.moduleId).split(path.sep).join("/"));
    const slow = files.filter((f) => rank(f) >= 0).sort((a, b) => rank(a) - rank(b));
    const rest = await super.sort(files.filter((f) => rank(f) < 0));
    return [...slow, ...rest];
  }
}
