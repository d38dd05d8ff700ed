// The judge's class API (server/routes/classes.py, teachers.py): a teacher's calls carry the
// teacher credential (X-Teacher-Token, kept in this browser's localStorage once pasted); a
// learner's carry the playground's client token. Errors are values.

import { ClientIdentity, getJson, type Result } from "../exercises/identity";

const CREDENTIAL_KEY = "kael.teacher";

export interface Cell {
  best_verdict: string | null;
  attempts: number;
  first_accepted_at: string | null;
  late: number;
  stuck: boolean;
}

export interface LearnerRow {
  id: string;
  display_name: string;
  joined_at: string;
  cells: Record<string, Cell>;
  solved: number;
}

export interface MistakeCount {
  mutant: string;
  message: { en?: string; zh?: string };
  learners: number;
}

export interface ExerciseMistakes {
  wrong: number;
  known: MistakeCount[];
  unknown: number;
}

export interface ClassInfo {
  id: string;
  name: string;
  join_code: string;
  exercises: string[];
  lessons: string[];
  deadline: string | null;
  created_at: string;
  learners: number;
}

export interface Dashboard {
  class: ClassInfo;
  exercises: string[];
  learners: LearnerRow[];
  mistakes: Record<string, ExerciseMistakes>;
  stuck_attempts: number;
}

export interface LearnerSubmission {
  id: string;
  exercise_id: string;
  status: string;
  verdict: string | null;
  late: boolean;
  created_at: string;
  finished_at: string | null;
  message: string | null;
  mistakes: { mutant: string; message: { en?: string; zh?: string } }[];
}

export interface LearnerSubmissionFull extends LearnerSubmission {
  code: string;
  report: { message?: string } | null;
}

export interface JoinedClass {
  name: string;
  display_name: string;
  exercises: string[];
  lessons: string[];
  deadline: string | null;
  joined_at: string;
}

export interface NewClass {
  name: string;
  exercises: string[];
  deadline: string | null;
}

function readCredential(): string | null {
  try {
    return localStorage.getItem(CREDENTIAL_KEY);
  } catch {
    return null;
  }
}

export class TeacherApi {
  constructor(private readonly api: string) {}

  get signedIn(): boolean {
    return readCredential() !== null;
  }

  signOut(): void {
    localStorage.removeItem(CREDENTIAL_KEY);
  }

  /** Checks a pasted credential with the server, and keeps it only if it is valid. */
  async signIn(credential: string): Promise<Result<{ id: string; name: string }>> {
    const result = await getJson<{ id: string; name: string }>(`${this.api}teachers/me`, {
      headers: { "X-Teacher-Token": credential.trim() }, cache: "no-store" });
    if (result.ok) localStorage.setItem(CREDENTIAL_KEY, credential.trim());
    return result;
  }

  private call<T>(path: string, init: RequestInit = {}): Promise<Result<T>> {
    const credential = readCredential() ?? "";
    return getJson<T>(`${this.api}${path}`, {
      cache: "no-store", ...init,
      headers: { ...(init.headers as object), "X-Teacher-Token": credential },
    });
  }

  me() { return this.call<{ id: string; name: string }>("teachers/me"); }
  classes() { return this.call<{ data: ClassInfo[] }>("classes"); }
  dashboard(id: string) { return this.call<Dashboard>(`classes/${encodeURIComponent(id)}/dashboard`); }

  create(body: NewClass): Promise<Result<ClassInfo>> {
    return this.call("classes", { method: "POST", headers: { "Content-Type": "application/json" },
                                  body: JSON.stringify({ ...body, lessons: [] }) });
  }

  /** A page of a learner's class work, newest first (codes and reports come one at a time). */
  learner(classId: string, learnerId: string, offset = 0) {
    return this.call<{ display_name: string; data: LearnerSubmission[]; count: number }>(
      `classes/${encodeURIComponent(classId)}/learners/${encodeURIComponent(learnerId)}/submissions?limit=20&offset=${offset}`);
  }

  submission(classId: string, learnerId: string, id: string) {
    return this.call<LearnerSubmissionFull>(
      `classes/${encodeURIComponent(classId)}/learners/${encodeURIComponent(learnerId)}/submissions/${encodeURIComponent(id)}`);
  }

  /** An export as a Blob (the credential is a header, so a plain link cannot fetch it). */
  async download(classId: string, kind: "csv" | "json"): Promise<Result<Blob>> {
    try {
      const response = await fetch(`${this.api}classes/${encodeURIComponent(classId)}/export.${kind}`, {
        headers: { "X-Teacher-Token": readCredential() ?? "" }, cache: "no-store" });
      if (!response.ok) return { ok: false, message: `${response.status} ${response.statusText}`, status: response.status };
      return { ok: true, value: await response.blob() };
    } catch (error) {
      return { ok: false, message: String((error as Error)?.message ?? error), unreachable: true };
    }
  }
}

export class LearnerApi {
  private readonly identity: ClientIdentity;

  constructor(private readonly api: string) {
    this.identity = new ClientIdentity(api);
  }

  join(code: string, displayName: string): Promise<Result<JoinedClass>> {
    return this.identity.fetch(`${this.api}classes/join`, {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ code, display_name: displayName }) });
  }

  joined(): Promise<Result<{ data: JoinedClass[] }>> {
    return this.identity.fetch(`${this.api}classes/joined`, { cache: "no-store" });
  }
}
