import type { FileChange } from "../domain/types.js";
import { RunTransaction, type TransactionOptions } from "./transaction.js";
import { TreeView, type TreeViewOptions } from "./view.js";

export { createNodeWorkspaceFs, tempFileName, tempTag, type WorkspaceFs } from "./fs.js";
export { RollbackError, RolledBackError, RunTransaction, type ActionEnd, type ActionTransaction } from "./transaction.js";
export { TreeView, type ReadResult, type StageInput } from "./view.js";

interface WorkspaceOptions extends TreeViewOptions, TransactionOptions {}

/**
 * The one way tollgate reads and writes user files: the contained view of the tree
 * (view.ts: containment, reads, staging) and the run's journaled transaction (transaction.ts:
 * action transactions, rollback, `--atomic`), one of each per run.
 *
 * Producers stage through the view and their actions write with `apply`, which joins the action
 * the runner has begun (`transaction.beginAction` … `end`) or, outside one, is its own.
 */
export class Workspace extends TreeView {
  readonly transaction: RunTransaction;

  constructor(options: WorkspaceOptions) {
    super(options);
    this.transaction = new RunTransaction(this, options);
  }

  /** See RunTransaction.apply. */
  apply(changes: readonly FileChange[]): Promise<FileChange[]> {
    return this.transaction.apply(changes);
  }
}
