/**
 * What both tools share: the global --env option, help on every command, and the exit codes —
 * 0 done, 1 failed (findings with errors, the API refused, a network failure), 2 usage errors
 * (unknown command or option, missing argument, a bad value).
 */
import { Command, CommanderError } from 'commander';
import { CliError } from './cli-error';
import { info } from './output';

export function newProgram(name: string, description: string): Command {
  const program = new Command(name)
    .description(description)
    .option('--env <name>', 'the environment (profile) to use; default: $SVC_ENV, else the current one (svc env use)')
    .showHelpAfterError('(add --help for usage)')
    .configureHelp({ showGlobalOptions: true, sortSubcommands: true })
    .exitOverride();
  return program;
}

/** Every command of a program exits through here, with the exit codes above. */
export async function runProgram(program: Command, argv: string[] = process.argv): Promise<void> {
  for (const command of program.commands) command.exitOverride();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version end with code 0; any other commander error is a usage error.
      process.exitCode = error.exitCode === 0 ? 0 : 2;
      return;
    }
    if (error instanceof CliError) {
      info(`error: ${error.message}`);
      process.exitCode = error.exitCode;
      return;
    }
    info(`error: ${(error as Error).stack ?? String(error)}`);
    process.exitCode = 1;
  }
}

/** The --env of the program, whichever command it was given to. */
export function envOption(command: Command): string | undefined {
  return (command.optsWithGlobals() as { env?: string }).env;
}

export function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new CliError(`--port must be a port number (0 to 65535), not "${value}".`, 2);
  return port;
}
