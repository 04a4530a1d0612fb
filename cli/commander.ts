import { createRequire } from 'node:module';
import type * as Commander from 'commander';

// commander as the unbundled CLI loads it: a CommonJS package, required as one, skips the
// ES-module wrapper and the export scan of its CommonJS source (about 5 ms of every fresh process,
// twice that on a loaded machine). The one-file `rules calculate` (bin/bundle-calculate.mjs)
// puts commander itself in place of this module.
export const { Command, CommanderError } = createRequire(import.meta.url)('commander') as typeof Commander;
