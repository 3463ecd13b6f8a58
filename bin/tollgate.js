#!/usr/bin/env node
// Thin entry: the bundled CLI (scripts/bundle.mjs) answers --version before loading anything heavy.
import "../dist/bundle/main.js";
