import { Effect } from "effect";

export const total = (prices: number[]) => Effect.map(Effect.succeed(prices), (ps) => ps.reduce((a, b) => a + b, 0));
