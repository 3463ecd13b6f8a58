import { Effect } from "effect";
export const untouched = Effect.map(Effect.succeed(2), String);
