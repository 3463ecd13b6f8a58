import type { TSchema } from "@sinclair/typebox";
import type { CustomTool, CustomToolAPI, CustomToolFactory } from "./types.js";

type Awaitable<T> = T | Promise<T>;

/**
 * A factory for one custom tool whose `execute` params are `Static<typeof parameters>` (a plain
 * `CustomToolFactory` annotation cannot tie the two: its params are `any`). At run time it is
 * just the factory. Two forms:
 *
 *     defineTool(Type.Object({ files: Type.Array(Type.String()) }), (pi) => ({ name, label, description, execute(_id, params) {...} }))
 *     defineTool((pi: CustomToolAPI) => ({ name, label, description, parameters, execute(_id, params) {...} }))
 *
 * TypeScript infers `parameters` before typing `params` only when the factory's own parameter is
 * not contextually typed: in the second form write `pi: CustomToolAPI` (without it `params` is
 * `unknown`, never `any`); the first form needs no annotation.
 */
export function defineTool<TParams extends TSchema, TDetails = unknown>(
  parameters: TParams,
  factory: (pi: CustomToolAPI) => Awaitable<Omit<CustomTool<TParams, TDetails>, "parameters">>,
): CustomToolFactory;
export function defineTool<TParams extends TSchema, TDetails = unknown>(
  factory: (pi: CustomToolAPI) => Awaitable<CustomTool<TParams, TDetails>>,
): CustomToolFactory;
export function defineTool(
  first: TSchema | ((pi: CustomToolAPI) => Awaitable<CustomTool>),
  factory?: (pi: CustomToolAPI) => Awaitable<Omit<CustomTool, "parameters">>,
): CustomToolFactory {
  if (typeof first === "function") return first as CustomToolFactory;
  const make = factory!;
  return async (pi) => ({ ...(await make(pi)), parameters: first });
}
