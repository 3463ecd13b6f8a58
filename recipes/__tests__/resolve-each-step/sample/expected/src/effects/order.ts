import { Effect } from "effect";

export const total = (prices: number[]) => Effect.succeed(prices).pipe(Effect.andThen((ps) => ps.reduce((a, b) => a + b, 0)));
