import { Effect } from "effect";

export function load(id: string) {
  logger.info("loading", id);
  if (id == null) {
    return Effect.fail("no id");
  }
  return Effect.andThen(fetchUser(id), (user) => user.name);
}

export const same = (a: number, b: number) => a == b;
