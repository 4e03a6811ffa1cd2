// Finds the `faultlens` binary: the `faultlens.serverPath` setting, else the
// first `faultlens` on PATH, else a message saying how to install it.
// Uses node's fs, never `vscode`: unit-tested.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

export type ServerLocation =
  | { ok: true; path: string; source: "setting" | "PATH" }
  | { ok: false; message: string };

export const INSTALL_HINT =
  "Install the server with `cargo install --path server/cli` in a faultlens checkout (or build it with " +
  "`cargo build --release -p faultlens`) and put `faultlens` on PATH, or set the `faultlens.serverPath` setting to the binary.";

export function isExecutableFile(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) return false;
    if (process.platform === "win32") return true;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface ResolveOptions {
  /** The `faultlens.serverPath` setting (may be empty). */
  setting: string;
  /** The PATH to search. */
  envPath: string;
  /** Folder a relative setting is relative to, and `${workspaceFolder}`. */
  workspaceRoot?: string;
  platform?: NodeJS.Platform;
  isExecutable?: (p: string) => boolean;
  homeDir?: string;
}

export function expandSetting(setting: string, workspaceRoot: string | undefined, homeDir: string): string {
  let p = setting.trim();
  if (workspaceRoot !== undefined) p = p.replace(/\$\{workspaceFolder\}/g, workspaceRoot);
  if (p === "~" || p.startsWith("~/")) p = path.join(homeDir, p.slice(1));
  if (!path.isAbsolute(p) && workspaceRoot !== undefined) p = path.resolve(workspaceRoot, p);
  return p;
}

export function resolveServerPath(o: ResolveOptions): ServerLocation {
  const isExec = o.isExecutable ?? isExecutableFile;
  const platform = o.platform ?? process.platform;
  const setting = o.setting.trim();
  if (setting !== "") {
    const p = expandSetting(setting, o.workspaceRoot, o.homeDir ?? os.homedir());
    if (isExec(p)) return { ok: true, path: p, source: "setting" };
    return {
      ok: false,
      message: `faultlens.serverPath is set to "${setting}", but there is no executable file at ${p}. Fix the setting or clear it to use the faultlens on PATH.`,
    };
  }
  const names = platform === "win32" ? ["faultlens.exe", "faultlens"] : ["faultlens"];
  const sep = platform === "win32" ? ";" : ":";
  for (const dir of o.envPath.split(sep)) {
    if (dir === "") continue;
    for (const name of names) {
      const p = path.join(dir, name);
      if (isExec(p)) return { ok: true, path: p, source: "PATH" };
    }
  }
  return {
    ok: false,
    message: `The faultlens language server was not found: faultlens.serverPath is empty and there is no faultlens on PATH. ${INSTALL_HINT}`,
  };
}
