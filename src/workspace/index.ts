export * from "./workspace.js";
export * from "./journal.js";
export * from "./lock.js";
export * from "./recover.js";
export * from "./paths.js";
export * from "./action.js";
export * from "./text.js";
