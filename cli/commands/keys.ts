import type { Command } from 'commander';

export function registerKeys(program: Command): void {
  void program;
}
