// SPDX-License-Identifier: MIT
import { greet } from "./greet";

console.log(greet("world"));
