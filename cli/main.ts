import type * as Commander from 'commander';
import { Command, CommanderError } from './commander.js';
import { EXIT_USAGE, isUsageError } from './exit-codes.js';
import { PACKAGE_VERSION } from '../compiler/project.js';

type Register = (program: Commander.Command) => void;

/** Each command's module, loaded only when needed: `rules calculate` in a fresh process must not
 *  pay for the daemon's and the MCP server's dependencies. */
const COMMANDS: Record<string, () => Promise<Register>> = {
  test: async () => (await import('./commands/test.js')).registerTest,
  compile: async () => (await import('./commands/compile.js')).registerCompile,
  calculate: async () => (await import('./commands/calculate.js')).registerCalculate,
  diff: async () => (await import('./commands/diff.js')).registerDiff,
  serve: async () => (await import('./commands/serve.js')).registerServe,
  parity: async () => (await import('./commands/parity.js')).registerParity,
  validate: async () => (await import('./commands/validate.js')).registerValidate,
  keys: async () => (await import('./commands/keys.js')).registerKeys,
  mcp: async () => (await import('./commands/mcp.js')).registerMcp,
  explore: async () => (await import('./commands/explore.js')).registerExplore,
};

/** The CLI with every command, or only `command` when it is one (the others are not loaded);
 *  none for `--version`, which needs none. */
export async function buildProgram(command?: string): Promise<Commander.Command> {
  const program = new Command('rules')
    .description('Rules as code: compile, test and serve RuleSpec v1 encodings')
    .version(PACKAGE_VERSION, '-v, --version')
    .showHelpAfterError('(run `rules --help` for usage)')
    .exitOverride();
  const names = command === '--version' || command === '-v' ? [] : command !== undefined && Object.hasOwn(COMMANDS, command) ? [command] : Object.keys(COMMANDS);
  const registers = await Promise.all(names.map((name) => COMMANDS[name]()));
  for (const register of registers) register(program);
  return program;
}

/** A reader that stops early (`rules … | head`) closes the pipe: stop quietly, as Unix tools do. */
function quietOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(process.exitCode ?? 0);
  });
}

export async function main(argv: string[]): Promise<void> {
  quietOnClosedPipe(process.stdout);
  try {
    const program = await buildProgram(argv[2]);
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0; anything commander rejects is a usage error
      process.exitCode = err.exitCode === 0 ? 0 : EXIT_USAGE;
      return;
    }
    if (isUsageError(err)) {
      process.stderr.write(`rules: ${err.message}\n`);
      process.exitCode = EXIT_USAGE;
      return;
    }
    throw err;
  }
}
