// Tells the server when a command the developer ran ends: a command line in
// the integrated terminal (shell integration) or a task. The server decides
// whether it ran tests and re-localizes when it failed
// (`faultlens/testRunEnded`, editors/lsp-extensions.md).
import * as vscode from "vscode";
import { testRunEnded, type TestRunEndedParams } from "./protocol";

/** The command line a task runs, as far as the task says. */
function taskCommandLine(task: vscode.Task): string {
  const exec = task.execution;
  if (exec instanceof vscode.ShellExecution || exec instanceof vscode.ProcessExecution) {
    const command = exec instanceof vscode.ProcessExecution ? exec.process : exec.commandLine ?? (typeof exec.command === "string" ? exec.command : exec.command?.value);
    const args = (exec.args ?? []).map((a) => (typeof a === "string" ? a : a.value));
    return [command ?? task.name, ...args].join(" ");
  }
  return task.name;
}

export function watchTestRuns(send: (params: TestRunEndedParams) => void, log: (line: string) => void): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.window.onDidEndTerminalShellExecution((e) => {
      // The command line itself is not logged: it may hold anything the user typed.
      log(`[client] a terminal command ended (exit code ${String(e.exitCode)}); the server decides whether it ran tests`);
      send(testRunEnded(e.execution.commandLine.value, "terminal", e.exitCode, e.execution.cwd?.fsPath));
    }),
    vscode.tasks.onDidEndTaskProcess((e) => {
      const task = e.execution.task;
      const testGroup = task.group?.id === vscode.TaskGroup.Test.id;
      send(testRunEnded(taskCommandLine(task), "task", e.exitCode, undefined, testGroup));
    }),
  );
}
