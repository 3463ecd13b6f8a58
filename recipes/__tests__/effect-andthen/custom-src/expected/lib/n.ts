import { Effect } from "effect";
export const n = Effect.andThen(Effect.succeed(1), (x) => x + 1);
