import type { PendingAction } from "../domain/types.js";

type PushListener = (action: PendingAction, count: number) => void;

/** One per session: a LIFO stack of pending actions. */
export class PendingActionStore {
  readonly #stack: PendingAction[] = [];
  readonly #listeners = new Set<PushListener>();

  push(action: PendingAction): void {
    this.#stack.push(action);
    const count = this.#stack.length;
    for (const listener of this.#listeners) listener(action, count);
  }

  peek(): PendingAction | undefined {
    return this.#stack[this.#stack.length - 1];
  }

  pop(): PendingAction | undefined {
    return this.#stack.pop();
  }

  get hasPending(): boolean {
    return this.#stack.length > 0;
  }

  get count(): number {
    return this.#stack.length;
  }

  /** Top first. */
  snapshot(): readonly PendingAction[] {
    return [...this.#stack].reverse();
  }

  /** Returns the unsubscribe function. */
  subscribePush(listener: PushListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
