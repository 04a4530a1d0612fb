import { Command, CommanderError } from 'commander';
import { EXIT_USAGE, UsageError } from './exit-codes.js';
import { registerCompile } from './commands/compile.js';
import { registerExplore } from './commands/explore.js';
import { registerKeys } from './commands/keys.js';
import { registerMcp } from './commands/mcp.js';
import { registerParity } from './commands/parity.js';
import { registerServe } from './commands/serve.js';
import { registerTest } from './commands/test.js';
import { registerValidate } from './commands/validate.js';
import { PACKAGE_VERSION } from '../compiler/project.js';

export function buildProgram(): Command {
  const program = new Command('rules')
    .description('Rules as code: compile, test and serve RuleSpec v1 encodings')
    .version(PACKAGE_VERSION, '-v, --version')
    .showHelpAfterError('(run `rules --help` for usage)')
    .exitOverride();
  registerTest(program);
  registerCompile(program);
  registerServe(program);
  registerParity(program);
  registerValidate(program);
  registerKeys(program);
  registerMcp(program);
  registerExplore(program);
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
  const program = buildProgram();
  try {
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
