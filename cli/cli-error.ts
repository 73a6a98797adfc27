/** A failure the command line reports in one line and ends with its exit code (1: failed, 2: usage). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
