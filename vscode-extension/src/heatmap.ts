// Paints suspicious lines in visible editors: a translucent whole-line
// background from the viridis scale, a matching overview-ruler mark, and the
// rank ("#1") after the line so colour is never the only cue. No gutter
// icons: the gutter belongs to breakpoints.
import * as vscode from "vscode";
import { planHeatmap, styleOfKey } from "./heatPlan";
import type { ScoredLine, ScoresParams } from "./protocol";

/** What one painted line looks like; returned to tests, which cannot read decorations back. */
export interface PaintedLine {
  uri: string;
  line: number;
  heat: number;
  background: string;
  overviewRuler: string;
  after: string;
  stale: boolean;
}

export class Heatmap implements vscode.Disposable {
  private readonly types = new Map<number, vscode.TextEditorDecorationType>();
  private byUri = new Map<string, ScoredLine[]>();
  private painted: PaintedLine[] = [];

  constructor(private enabled: boolean) {}

  setScores(scores: ScoresParams | undefined): void {
    this.byUri = new Map();
    for (const f of scores?.files ?? []) this.byUri.set(normalizeUri(f.uri), f.lines);
    this.render();
  }

  setEnabled(enabled: boolean): void {
    this.enabled = enabled;
    this.render();
  }

  isEnabled(): boolean {
    return this.enabled;
  }

  /** Lines painted in the visible editors at the last render. */
  snapshot(): PaintedLine[] {
    return this.painted.map((p) => ({ ...p }));
  }

  render(editors: readonly vscode.TextEditor[] = vscode.window.visibleTextEditors): void {
    this.painted = [];
    for (const editor of editors) this.renderEditor(editor);
  }

  private renderEditor(editor: vscode.TextEditor): void {
    const uri = editor.document.uri.toString();
    const lines = this.enabled ? (this.byUri.get(uri) ?? []) : [];
    const groups = new Map<number, vscode.DecorationOptions[]>();
    for (const p of planHeatmap(lines, editor.document.lineCount)) {
      let group = groups.get(p.key);
      if (group === undefined) groups.set(p.key, (group = []));
      group.push({ range: new vscode.Range(p.line, 0, p.line, 0), renderOptions: { after: { contentText: p.after } } });
      this.painted.push({ uri, line: p.line, heat: p.heat, background: p.style.background, overviewRuler: p.style.overviewRuler, after: p.after, stale: p.stale });
    }
    for (const key of groups.keys()) this.typeOf(key);
    // Every known type is set, empty ones too, so lines no longer scored lose their colour.
    for (const [key, type] of this.types) editor.setDecorations(type, groups.get(key) ?? []);
  }

  private typeOf(key: number): vscode.TextEditorDecorationType {
    let type = this.types.get(key);
    if (type === undefined) {
      const style = styleOfKey(key);
      type = vscode.window.createTextEditorDecorationType({
        isWholeLine: true,
        backgroundColor: style.background,
        overviewRulerColor: style.overviewRuler,
        overviewRulerLane: vscode.OverviewRulerLane.Center,
        rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
        after: {
          // The editor's own text colour reads on every shade of the ramp, light theme or dark.
          color: new vscode.ThemeColor("editor.foreground"),
          margin: "0 0 0 2em",
          fontWeight: "bold",
        },
      });
      this.types.set(key, type);
    }
    return type;
  }

  dispose(): void {
    for (const t of this.types.values()) t.dispose();
    this.types.clear();
  }
}

/** Server URIs and editor URIs may encode the same path differently. */
export function normalizeUri(uri: string): string {
  try {
    return vscode.Uri.parse(uri).toString();
  } catch {
    return uri;
  }
}
