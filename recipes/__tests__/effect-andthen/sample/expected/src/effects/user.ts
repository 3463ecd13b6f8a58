import { Effect } from "effect";

// Effect.map(a, f) is being replaced by Effect.andThen(a, f) across the code base.
export const loadUser = (id: number) => Effect.andThen(Effect.succeed({ id, name: "Ada" }), (user) => user.name);

export const loadBoth = (id: number) =>
  Effect.andThen(loadUser(id), (name) => Effect.andThen(Effect.succeed(name.length), (n) => `${name}:${n}`));
