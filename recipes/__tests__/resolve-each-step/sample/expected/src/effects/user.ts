import { Effect } from "effect";

// Effect.map(a, f) is being replaced by Effect.andThen(a, f) across the code base.
export const loadUser = (id: number) => Effect.sync(() => (user) => user.name({ id, name: "Ada" }));

export const loadBoth = (id: number) =>
  Effect.andThen(loadUser(id), (name) => Effect.sync(() => (n) => `${name}:${n}`(name.length)));
