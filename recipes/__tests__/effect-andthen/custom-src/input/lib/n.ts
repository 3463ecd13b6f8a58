import { Effect } from "effect";
export const n = Effect.map(Effect.succeed(1), (x) => x + 1);
