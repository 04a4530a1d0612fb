import { Command, CommanderError } from 'commander';
import { EXIT_USAGE, UsageError } from './exit-codes.js';
import { PACKAGE_VERSION } from '../compiler/project.js';

type Register = (program: Command) => void;

// Each command's module (and what it imports: fastify, ajv, the MCP SDK, …) is loaded only when
// that command runs, so `rules test` and `rules compile` start without the server's weight.
const COMMANDS: [name: string, load: () => Promise<Register>][] = [
  ['test', async () => (await import('./commands/test.js')).registerTest],
  ['compile', async () => (await import('./commands/compile.js')).registerCompile],
  ['serve', async () => (await import('./commands/serve.js')).registerServe],
  ['parity', async () => (await import('./commands/parity.js')).registerParity],
  ['validate', async () => (await import('./commands/validate.js')).registerValidate],
  ['keys', async () => (await import('./commands/keys.js')).registerKeys],
  ['mcp', async () => (await import('./commands/mcp.js')).registerMcp],
];

/** The CLI with every command, or only `only` when it names one (help and errors need them all). */
export async function buildProgram(only?: string): Promise<Command> {
  const program = new Command('rules')
    .description('Rules as code: compile, test and serve RuleSpec v1 encodings')
    .version(PACKAGE_VERSION, '-v, --version')
    .showHelpAfterError('(run `rules --help` for usage)')
    .exitOverride();
  const wanted = COMMANDS.filter(([name]) => name === only);
  for (const [, load] of wanted.length ? wanted : COMMANDS) (await load())(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    const program = await buildProgram(argv[2]);
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0; anything commander rejects is a usage error
      process.exitCode = err.exitCode === 0 ? 0 : EXIT_USAGE;
      return;
    }
    if (err instanceof UsageError) {
      process.stderr.write(`rules: ${err.message}\n`);
      process.exitCode = EXIT_USAGE;
      return;
    }
    throw err;
  }
}
