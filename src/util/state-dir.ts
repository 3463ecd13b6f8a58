/**
 * The directory tollgate keeps its own state in, at the workspace root (the apply journal, the
 * lock, spilled texts). Never a user file: tools do not see it and nothing writes into it
 * through the workspace.
 */
export const STATE_DIR = ".tollgate";
