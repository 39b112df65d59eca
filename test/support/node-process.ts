import { type ChildProcess, spawn } from "node:child_process";

/** What a finished process left: exit code and everything it wrote. */
export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface StartedProcess {
  child: ChildProcess;
  /** Settles when the process has exited and its output is closed. */
  done: Promise<ProcessResult>;
}

export interface NodeProcessOptions {
  /** The whole environment of the process (nothing is inherited unless passed). */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Written to stdin, which is then closed; without it stdin is closed at once. */
  input?: string;
}

/** Starts `node <script> ...args`, collecting stdout and stderr as text. */
export function startNode(script: string, args: string[], options: NodeProcessOptions = {}): StartedProcess {
  const child = spawn(process.execPath, [script, ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  const done = new Promise<ProcessResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
  if (options.input !== undefined) child.stdin?.end(options.input);
  return { child, done };
}

/** Runs `node <script> ...args` to its end. */
export function runNode(script: string, args: string[], options: NodeProcessOptions = {}): Promise<ProcessResult> {
  return startNode(script, args, options).done;
}
