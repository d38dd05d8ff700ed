// What the stepper and the editor say to each other (the step's line and its note; a clicked
// line), and the run options the page's switches set. The Trace view and the editor never
// import each other: the page connects both to this one link.

import type { CodeEditor, LineNote } from "../editor/editor";
import type { Highlight } from "../graph/canvas";
import type { GraphDrawing } from "../graph/drawing";
import type { GraphData } from "../graph/types";
import type { PyError, RunOptions } from "../worker/protocol";
import { sw } from "./words";

type NotesListener = (notes: LineNote[], reveal: boolean) => void;

/** The bytes saved tensors hold at each of the stepper's steps (forward lines, then the
 * backward frames), read from the recording: a step's `held_bytes`, then what the pass frees. */
export interface StepperMemory {
  held: number[];
  backwardFrom: number; // the index of the first backward frame (held.length when none)
  backwardLine: number | null; // the program line whose step ran the pass
}

/** Where the one stepper is: the Trace tab owns it, the Graph and Memory tabs follow it. */
export interface StepperFrame {
  index: number;
  total: number; // steps (index runs 0 .. total - 1)
  text: string; // "Forward step 3 of 6 · line 3"
  phase: "forward" | "backward";
  graph: GraphData | null; // the stepper's graph as of this step (gradients as they stand)
  /** The step's highlight for a drawing of the stepper's graph (its own boxes and groups). */
  highlight(drawing: GraphDrawing): Highlight;
  focus: (highlight: Highlight) => string | null; // the box to center on
  memory: StepperMemory;
  notice: string | null;
}

/** A view that follows the stepper: it draws the stepper's graph and each step on it. */
export interface StepperFollower {
  graph(data: GraphData): void;
  frame(frame: StepperFrame): void;
  reset(): void;
}

class StepperLink {
  private notes: NotesListener = () => {};
  private lines: ((line: number) => void)[] = [];
  private runner: () => void = () => {};

  /** The editor shows the notes (and scrolls to the first when `reveal`). */
  onNotes(listener: NotesListener): void {
    this.notes = listener;
  }

  showNotes(notes: LineNote[], reveal: boolean): void {
    this.notes(notes, reveal);
  }

  onLineClick(listener: (line: number) => void): void {
    this.lines.push(listener);
  }

  lineClicked(line: number): void {
    for (const listener of this.lines) listener(line);
  }

  private followers: StepperFollower[] = [];
  private goer: (index: number) => void = () => {};

  /** A tab that draws what the stepper shows (the Graph tab's graph, the Memory tab's curve). */
  follow(follower: StepperFollower): void {
    this.followers.push(follower);
  }

  showGraph(data: GraphData): void {
    for (const f of this.followers) f.graph(data);
  }

  showFrame(frame: StepperFrame): void {
    for (const f of this.followers) f.frame(frame);
  }

  resetFollowers(): void {
    for (const f of this.followers) f.reset();
  }

  /** The stepper moves to `index` (a follower's own buttons and keys drive the one stepper). */
  onGo(go: (index: number) => void): void {
    this.goer = go;
  }

  go(index: number): void {
    this.goer(index);
  }

  /** The page's Run (the Trace tab's "Record and step" starts a recorded run). */
  onRun(run: () => void): void {
    this.runner = run;
  }

  run(): void {
    this.runner();
  }
}

export const stepperLink = new StepperLink();

const RECORD_KEY = "kael.stepper.record";
const SOURCE_KEY = "kael.detectSource";

function read(key: string, fallback: boolean): boolean {
  try {
    const value = localStorage.getItem(key);
    return value === null ? fallback : value === "1";
  } catch {
    return fallback;
  }
}

function write(key: string, on: boolean): void {
  try {
    localStorage.setItem(key, on ? "1" : "0");
  } catch {
    // storage refused (private mode): the switch holds for this page only
  }
}

/** The page's run switches: record the forward pass (off by default: it costs time), and name the
 * lines of autograd errors (on by default; tests/bench/forward_recording.py measures both). */
export const runSwitches = {
  recordForward: read(RECORD_KEY, false),
  detectSource: read(SOURCE_KEY, true),
  /** A share link landing on a forward step records this run whatever the switch says. */
  recordOnce: false,
  setRecordForward(on: boolean): void {
    this.recordForward = on;
    write(RECORD_KEY, on);
  },
  setDetectSource(on: boolean): void {
    this.detectSource = on;
    write(SOURCE_KEY, on);
  },
  /** The options of the next run (a one-off recording is used up by it). */
  take(): RunOptions {
    const options = { detectSource: this.detectSource, recordForward: this.recordForward || this.recordOnce };
    this.recordOnce = false;
    return options;
  },
};

/** The editor's notes for an error's lines: the in-place error's saved, modified, backward. */
export function errorNotes(error: Pick<PyError, "marks">): LineNote[] {
  return (error.marks ?? []).map((m) => {
    const vars = { node: m.node ?? "?", then: m.saved_version, now: m.version };
    const key = m.kind === "saved" ? "mark.saved" : m.kind === "modified" ? "mark.modified" : "mark.backward";
    return { line: m.line, kind: m.kind, text: sw(key, vars) };
  });
}

/** Connects the page's editor and Run to the stepper. */
export function connectStepper(editor: CodeEditor, run: () => void): void {
  editor.onLineClick = (line) => stepperLink.lineClicked(line);
  stepperLink.onNotes((notes, reveal) => {
    editor.setNotes(notes);
    if (reveal && notes.length) editor.reveal(notes[0].line);
  });
  stepperLink.onRun(run);
}
