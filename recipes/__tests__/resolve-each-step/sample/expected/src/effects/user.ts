import { Effect } from "effect";

// Effect.map(a, f) is being replaced by Effect.andThen(a, f) across the code base.
export const loadUser = (id: number) => Effect.succeed({ id, name: "Ada" }).pipe(Effect.andThen((user) => user.name));

export const loadBoth = (id: number) =>
  Effect.andThen(loadUser(id), (name) => Effect.succeed(name.length).pipe(Effect.andThen((n) => `${name}:${n}`)));
