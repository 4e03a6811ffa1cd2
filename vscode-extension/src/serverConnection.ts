// Starts, stops and talks to `faultlens lsp` through vscode-languageclient.
// Every start makes a fresh client, so initializationOptions (settings and
// workspace trust) are read anew: that is how trust granted later reaches
// the server.
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  State,
  type LanguageClientOptions,
  type ServerOptions,
} from "vscode-languageclient/node";
import { parseScores, parseStatus, progressJob, runsCode, type ScoresParams, type StatusParams } from "./protocol";
import { resolveServerPath } from "./serverPath";
import { configurationChange, initializationOptions, readServerSettings, type ServerSettings } from "./settings";
import type { ClientState, RunProgress } from "./statusModel";

export interface ConnectionEvents {
  scores(s: ScoresParams): void;
  status(s: StatusParams): void;
  clientState(s: ClientState): void;
  /** Progress of a build-and-test run; undefined when it ends. */
  progress(p: RunProgress | undefined): void;
}



export function readSettings(): ServerSettings {
  const cfg = vscode.workspace.getConfiguration("faultlens");
  return readServerSettings((k) => cfg.get(k));
}

export function workspaceRoot(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

export class ServerConnection implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private serverPath: string | undefined;
  /** The `faultlens.serverPath` value the current server was started with. */
  private startedWithSetting: string | undefined;
  /** Serializes start/stop so a restart never overlaps a start. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly log: vscode.OutputChannel,
    private readonly events: ConnectionEvents,
  ) {}

  start(): Promise<void> {
    return this.enqueue(() => this.doStart());
  }

  stop(): Promise<void> {
    return this.enqueue(() => this.doStop());
  }

  restart(): Promise<void> {
    return this.enqueue(async () => {
      await this.doStop();
      await this.doStart();
    });
  }

  /**
   * Restarts when `faultlens.serverPath` now differs from what the server was
   * started with. (Configuration events also fire when nothing we use changed,
   * e.g. when granting trust makes restricted settings apply.)
   */
  restartIfServerPathChanged(): Promise<void> {
    const now = vscode.workspace.getConfiguration("faultlens").get<string>("serverPath", "");
    return now === this.startedWithSetting ? Promise.resolve() : this.restart();
  }

  isRunning(): boolean {
    return this.client?.state === State.Running;
  }

  resolvedServerPath(): string | undefined {
    return this.serverPath;
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    const next = this.queue.then(step, step);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async doStart(): Promise<void> {
    const cfg = vscode.workspace.getConfiguration("faultlens");
    const root = workspaceRoot();
    this.startedWithSetting = cfg.get<string>("serverPath", "");
    const location = resolveServerPath({ setting: this.startedWithSetting, envPath: process.env.PATH ?? "", workspaceRoot: root });
    if (!location.ok) {
      this.serverPath = undefined;
      this.log.appendLine(`[client] ${location.message}`);
      this.events.clientState("notFound");
      void vscode.window.showErrorMessage(location.message, "Open Settings").then((pick) => {
        if (pick === "Open Settings") void vscode.commands.executeCommand("workbench.action.openSettings", "faultlens.serverPath");
      });
      return;
    }
    this.serverPath = location.path;
    const trusted = vscode.workspace.isTrusted;
    const options = initializationOptions(readSettings(), trusted);
    this.log.appendLine(`[client] starting ${location.path} lsp (found via ${location.source}); initializationOptions ${JSON.stringify(options)}`);
    this.events.clientState("starting");

    const serverOptions: ServerOptions = { command: location.path, args: ["lsp"], options: { cwd: root } };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: "file", language: "c" },
        { scheme: "file", language: "cpp" },
      ],
      outputChannel: this.log,
      initializationOptions: options,
      middleware: {
        // Mirror a run's progress in the status bar item; VS Code's own progress display still gets it.
        handleWorkDoneProgress: (token, params, next) => {
          if (progressJob(token)?.kind === "run") {
            this.events.progress(params.kind === "end" ? undefined : { percentage: params.percentage, message: params.message });
          }
          next(token, params);
        },
        // Code lenses or other extensions may ask for a run: refuse it here too.
        executeCommand: (command, args, next): Promise<unknown> => {
          if (runsCode(command) && !vscode.workspace.isTrusted) {
            warnUntrusted();
            return Promise.resolve(undefined);
          }
          return Promise.resolve(next(command, args) as unknown);
        },
      },
    };
    const client = new LanguageClient("faultlens", "faultlens", serverOptions, clientOptions);
    client.onNotification("faultlens/scores", (p: unknown) => this.events.scores(parseScores(p)));
    client.onNotification("faultlens/status", (p: unknown) => this.events.status(parseStatus(p)));
    client.onDidChangeState((e) => {
      if (e.newState === State.Stopped && this.client === client) this.events.clientState("stopped");
    });
    this.client = client;
    try {
      await client.start();
      this.log.appendLine("[client] server started");
    } catch (e) {
      this.log.appendLine(`[client] the server failed to start: ${String(e)}`);
      this.events.clientState("stopped");
      void vscode.window.showErrorMessage(`faultlens: the language server failed to start: ${String(e)}`, "Show Log").then((pick) => {
        if (pick === "Show Log") this.log.show();
      });
    }
  }

  private async doStop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client === undefined) return;
    try {
      if (client.state !== State.Stopped) await client.dispose(3000);
      this.log.appendLine("[client] server stopped");
    } catch (e) {
      this.log.appendLine(`[client] stopping the server: ${String(e)}`);
    }
  }

  private running(): LanguageClient {
    const c = this.client;
    if (c === undefined || c.state !== State.Running) {
      throw new Error("the faultlens language server is not running (see the faultlens output channel)");
    }
    return c;
  }

  /** Sends a workspace/executeCommand to the server; refuses code-running commands when untrusted. */
  async executeCommand(command: string, args: unknown[] = []): Promise<unknown> {
    if (runsCode(command) && !vscode.workspace.isTrusted) {
      warnUntrusted();
      return undefined;
    }
    return this.running().sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
  }

  async request(method: string, params: unknown): Promise<unknown> {
    return this.running().sendRequest(method, params);
  }

  /** Sends a notification when the server runs (dropped otherwise: nothing is waiting for it). */
  notify(method: string, params: unknown): void {
    if (!this.isRunning()) return;
    void this.running().sendNotification(method, params);
  }

  async sendSettings(): Promise<void> {
    if (!this.isRunning()) return;
    await this.running().sendNotification(DidChangeConfigurationNotification.type, configurationChange(readSettings()));
  }

  dispose(): void {
    void this.stop();
  }
}

export function warnUntrusted(): void {
  void vscode.window
    .showWarningMessage(
      "faultlens does not build the project or run its tests in a workspace you have not trusted. Existing results are still shown.",
      "Manage Workspace Trust",
    )
    .then((pick) => {
      if (pick === "Manage Workspace Trust") void vscode.commands.executeCommand("workbench.trust.manage");
    });
}
