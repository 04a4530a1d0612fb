import type { Command } from 'commander';

export function registerMcp(program: Command): void {
  void program;
}
