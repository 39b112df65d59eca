import type { Command, CommanderError } from "commander";

/** True when the command line asks for JSON output (errors then go to stdout as JSON too). */
export function jsonRequested(argv: readonly string[] = process.argv.slice(2)): boolean {
  const end = argv.indexOf("--");
  return (end < 0 ? argv : argv.slice(0, end)).includes("--json");
}

/** Exit codes shared by every error: 2 for a request that cannot be run as given, 1 for the rest. */
export const USAGE_EXIT_CODE = 2;

/**
 * Commander's own errors (a missing argument, an unknown option or command) are usage errors
 * like INVALID_REQUEST: exit 2, and with --json the one JSON error object on stdout instead of
 * the text on stderr. Help and --version still exit 0. Applied to every command, since
 * commands added with addCommand do not inherit these settings.
 */
export function handleUsageErrors(program: Command, argv: readonly string[] = process.argv.slice(2)): void {
  const json = jsonRequested(argv);
  const visit = (command: Command) => {
    command.exitOverride((error: CommanderError) => {
      if (error.exitCode === 0 || error.code === "commander.helpDisplayed" || error.code === "commander.version") {
        process.exit(error.exitCode);
      }
      if (json) {
        const message = error.message.replace(/^error: /, "");
        process.stdout.write(`${JSON.stringify({ error: { code: "INVALID_REQUEST", message } }, null, 2)}\n`);
      }
      process.exit(USAGE_EXIT_CODE);
    });
    if (json) command.configureOutput({ outputError: () => undefined, writeErr: () => undefined });
    for (const sub of command.commands) visit(sub);
  };
  visit(program);
}
