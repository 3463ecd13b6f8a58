import { Effect } from "effect";

export function load(id: string) {
  console.log("loading", id);
  if (id == null) {
    return Effect.fail("no id");
  }
  return Effect.map(fetchUser(id), (user) => user.name);
}

export const same = (a: number, b: number) => a == b;
