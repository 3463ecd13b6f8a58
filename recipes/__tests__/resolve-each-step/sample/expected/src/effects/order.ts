import { Effect } from "effect";

export const total = (prices: number[]) => Effect.sync(() => (ps) => ps.reduce((a, b) => a + b, 0)(prices));
