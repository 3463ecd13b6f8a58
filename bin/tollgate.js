#!/usr/bin/env node
// Thin entry: the CLI answers --version before loading anything heavy.
import "../dist/cli/main.js";
