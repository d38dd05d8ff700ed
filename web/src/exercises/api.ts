// Where exercise data and verdicts come from: the judge server's API when it answers
// (GET api/health), else the static export made at build time (data/). Errors are values.

import type { Urls } from "../config";
import type { TestReport, VirtualFile } from "../worker/protocol";
import { ClientIdentity, getJson, savedIdentity, TOKEN_PATTERN, type Result } from "./identity";
import type { Verdict } from "./verdicts";

export interface ExerciseSummary {
  id: string;
  number: number;
  title: string;
  titles: { en: string; zh?: string };
  difficulty: "easy" | "medium" | "hard" | string;
  topics: string[];
}

export interface ExerciseDetail extends ExerciseSummary {
  time_limit_s: number;
  memory_mb: number;
  solution_file: string;
  module: string;
  test_file: string;
  statement: { en: string; zh?: string };
  hints: { en: string; zh?: string };
  starter: string;
  public_tests: string;
  public_cases: { name: string; description: string | null }[];
  hidden_case_count: number;
}

export interface Submission {
  id: string;
  exercise_id: string;
  status: "queued" | "running" | "done" | "error" | string;
  verdict: Verdict | null;
  report: TestReport | null;
  error: string | null;
  created_at: string | null;
  finished_at?: string | null;
  code?: string | null; // one submission only (GET api/submissions/{id})
}

export type { Result } from "./identity";

/** A learner's progress as the judge keeps it (server/progress.py); `accepted` is the judge's own verdicts. */
export interface ServerProgress {
  lessons: Record<string, { read: boolean; read_at: number; cells: Record<string, "matched" | "differs"> }>;
  exercises: Record<string, { hints: number; passed: boolean; accepted?: boolean }>;
  version?: number;
}
/** Set once a judge answered api/health: offline later, Submit stays and says it is unreachable. */
const JUDGE_KEY = "kael.judge";

function remember(key: string, value: string | null): string | null {
  try {
    if (value !== null) localStorage.setItem(key, value);
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

export class ExerciseSource {
  /** True once api/health answered (or a judge served this page before and is unreachable
   * now): Submit is offered only then. */
  server = false;
  /** The judge did not answer api/health at all: Submit will say so. */
  unreachable = false;
  private readonly identity: ClientIdentity;
  private detailCache = new Map<string, ExerciseDetail>();
  private harness: VirtualFile[] | null = null;
  private probedAnswer!: (answered: boolean) => void;
  /** Resolves once api/health was asked: true when a judge answered it. */
  readonly probed = new Promise<boolean>((resolve) => (this.probedAnswer = resolve));

  constructor(private readonly urls: Urls) {
    this.identity = new ClientIdentity(urls.api);
  }

  async probeServer(): Promise<boolean> {
    const health = await getJson<{ status: string }>(`${this.urls.api}health`, { cache: "no-store" });
    this.unreachable = !health.ok && health.unreachable === true;
    this.server = health.ok ? health.value.status === "ok" : this.unreachable && remember(JUDGE_KEY, null) === "1";
    if (health.ok) remember(JUDGE_KEY, this.server ? "1" : "0");
    this.probedAnswer(health.ok && this.server);
    return this.server;
  }

  // ------------------------------------------------------------ progress (learn/sync.ts)

  /** This browser's identity at the judge, as a learner key another browser can take; null: none yet. */
  learnerKey(): string | null {
    return savedIdentity()?.token ?? null;
  }

  onIdentity(listener: () => void): void {
    this.identity.onIdentity(listener);
  }

  /** Merge a copy of the progress into this identity's on the judge; the merged copy. */
  mergeProgress(copy: ServerProgress): Promise<Result<ServerProgress>> {
    return this.identity.fetchKnown(`${this.urls.api}progress`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(copy),
      cache: "no-store",
    });
  }

  /** Use another browser's learner key here, once the judge says it issued it. */
  async useLearnerKey(key: string): Promise<Result<ServerProgress>> {
    const token = key.trim();
    if (!TOKEN_PATTERN.test(token)) return { ok: false, message: "format", status: 422 };
    const answer = await getJson<ServerProgress>(`${this.urls.api}progress`, { headers: { "X-Client-Token": token }, cache: "no-store" });
    if (answer.ok) this.identity.adopt(token);
    return answer;
  }

  async list(): Promise<Result<ExerciseSummary[]>> {
    const url = this.server ? `${this.urls.api}exercises` : `${this.urls.data}exercises.json`;
    const result = await getJson<{ data: ExerciseSummary[] }>(url);
    if (result.ok) return { ok: true, value: result.value.data };
    if (this.server) {
      const fallback = await getJson<{ data: ExerciseSummary[] }>(`${this.urls.data}exercises.json`);
      if (fallback.ok) return { ok: true, value: fallback.value.data };
    }
    return result;
  }

  async detail(id: string): Promise<Result<ExerciseDetail>> {
    const cached = this.detailCache.get(id);
    if (cached) return { ok: true, value: cached };
    const safe = encodeURIComponent(id);
    let result = this.server
      ? await getJson<ExerciseDetail>(`${this.urls.api}exercises/${safe}`)
      : await getJson<ExerciseDetail>(`${this.urls.data}exercises/${safe}.json`);
    if (!result.ok && this.server) result = await getJson<ExerciseDetail>(`${this.urls.data}exercises/${safe}.json`);
    if (result.ok) this.detailCache.set(id, result.value);
    return result;
  }

  /** The harness package, written into Python's file system before public tests run. */
  async harnessFiles(root: string): Promise<Result<VirtualFile[]>> {
    if (this.harness) return { ok: true, value: this.harness };
    const result = await getJson<{ files: { path: string; text: string }[] }>(`${this.urls.data}harness.json`);
    if (!result.ok) return result;
    this.harness = result.value.files.map((f) => ({ path: `${root}/${f.path}`, text: f.text }));
    return { ok: true, value: this.harness };
  }

  /** A request that needs the client's identity (exercises/identity.ts). */
  private withIdentity<T>(url: string, init: RequestInit = {}): Promise<Result<T>> {
    return this.identity.fetch<T>(url, init);
  }

  submit(exerciseId: string, code: string): Promise<Result<{ id: string; status: string }>> {
    return this.withIdentity(`${this.urls.api}submissions`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ exercise_id: exerciseId, code }),
    });
  }

  submission(id: string): Promise<Result<Submission>> {
    return this.withIdentity(`${this.urls.api}submissions/${encodeURIComponent(id)}`, { cache: "no-store" });
  }

  async history(exerciseId: string): Promise<Result<Submission[]>> {
    const result = await this.withIdentity<{ data: Submission[] }>(
      `${this.urls.api}submissions?exercise_id=${encodeURIComponent(exerciseId)}`,
      { cache: "no-store" },
    );
    return result.ok ? { ok: true, value: result.value.data } : result;
  }
}
