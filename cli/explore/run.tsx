import { render } from 'ink';
import { App } from './app.js';
import type { ExplorerSource } from './source.js';

// Runs the explorer on this terminal until the user quits.

export async function runExplorer(source: ExplorerSource, color: boolean): Promise<void> {
  const instance = render(<App source={source} color={color} />, { exitOnCtrlC: true });
  await instance.waitUntilExit();
}
