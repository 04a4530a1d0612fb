import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const PROJECT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = `${PROJECT}bin/rules.js`;
/** The shared RuleSpec corpus beside the project (present on developer machines and CI). */
export const CORPUS = fileURLToPath(new URL('../../../shared/rulespec-us', import.meta.url));
export const HAVE_CORPUS = existsSync(CORPUS);
