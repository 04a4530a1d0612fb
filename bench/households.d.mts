import type { RuntimePackage } from '../compiler/4-package/package-types.js';

export function random(seed: number): () => number;
export function generateHouseholds(pkg: RuntimePackage, count: number, seed?: number): Record<string, unknown>[];
export function writeHouseholds(pkg: RuntimePackage, count: number, file: string): Promise<void>;
