import { Effect } from "effect";

// Effect.map(a, f) is being replaced by Effect.andThen(a, f) across the code base.
export const loadUser = (id: number) => Effect.map(Effect.succeed({ id, name: "Ada" }), (user) => user.name);

export const loadBoth = (id: number) =>
  Effect.map(loadUser(id), (name) => Effect.map(Effect.succeed(name.length), (n) => `${name}:${n}`));
