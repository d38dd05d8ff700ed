// The teacher's page (teacher.html): sign in with a teacher credential, make a class, open one
// (#class=<id>) for its grid, mistake map, exports and each learner's submissions.

import "../styles.css";
import "./classroom.css";
import { resolveUrls } from "../config";
import { getJson } from "../exercises/identity";
import { clear, h } from "../ui/dom";
import { onLang, t } from "../ui/i18n";
import { TeacherApi, type ClassInfo } from "./api";
import { ClassBoard } from "./board";
import { pageHeader, when } from "./chrome";

const urls = resolveUrls();
const api = new TeacherApi(urls.api);
const main = h("main", { id: "main", class: "class-main" });

function classIdFromHash(): string | null {
  const id = new URLSearchParams(location.hash.replace(/^#/, "")).get("class");
  return id && /^[0-9a-f]{32}$/.test(id) ? id : null;
}

function signInForm(message = ""): HTMLElement {
  const input = h("input", { type: "password", id: "credential", autocomplete: "off", spellcheck: "false" });
  const note = h("p", { class: "class-status", role: "status" }, message);
  const form = h("form", { class: "class-form", onsubmit: async (event: Event) => {
    event.preventDefault();
    const result = await api.signIn(input.value);
    if (result.ok) void route();
    else note.textContent = t(result.status === 401 ? "class.badCredential" : "class.error", { message: result.message });
  } },
  h("h2", {}, t("class.signIn")), h("p", {}, t("class.signInHelp")),
  h("label", { for: "credential" }, t("class.credential")), input,
  h("button", { type: "submit", class: "primary" }, t("class.signInButton")), note);
  return form;
}

async function newClassForm(onMade: (c: ClassInfo) => void): Promise<HTMLElement> {
  const exercises = await getJson<{ data: { id: string; number: number; titles: { en: string; zh?: string } }[] }>(`${urls.api}exercises`);
  const name = h("input", { id: "class-name", required: true, maxlength: "100" });
  const deadline = h("input", { id: "class-deadline", type: "datetime-local" });
  const boxes = (exercises.ok ? exercises.value.data : []).map((ex) =>
    h("label", { class: "exercise-choice" }, h("input", { type: "checkbox", value: ex.id, name: "exercise" }), " ",
      `${String(ex.number).padStart(2, "0")} ${ex.titles[document.documentElement.lang.startsWith("zh") ? "zh" : "en"] ?? ex.titles.en}`));
  const note = h("p", { class: "class-status", role: "status" });
  return h("form", { class: "class-form", onsubmit: async (event: Event) => {
    event.preventDefault();
    const chosen = boxes.map((b) => b.querySelector("input")!).filter((b) => b.checked).map((b) => b.value);
    if (!chosen.length) { note.textContent = t("class.pickExercise"); return; }
    const result = await api.create({ name: name.value, exercises: chosen,
      deadline: deadline.value ? new Date(deadline.value).toISOString() : null });
    if (result.ok) onMade(result.value);
    else note.textContent = t("class.error", { message: result.message });
  } },
  h("h2", {}, t("class.new")),
  h("label", { for: "class-name" }, t("class.name")), name,
  h("fieldset", {}, h("legend", {}, t("class.assign")), h("div", { class: "exercise-choices" }, boxes)),
  h("label", { for: "class-deadline" }, t("class.deadlineOptional")), deadline,
  h("button", { type: "submit", class: "primary" }, t("class.create")), note);
}

async function classList(): Promise<void> {
  const result = await api.classes();
  clear(main);
  if (!result.ok) {
    if (result.status === 401) { api.signOut(); main.append(signInForm(t("class.revoked"))); return; }
    main.append(h("p", { role: "status" }, t("class.error", { message: result.message })));
    return;
  }
  const open = (id: string) => { location.hash = `class=${id}`; };
  const list = h("ul", { class: "class-list" }, result.value.data.map((c) => h("li", {},
    h("a", { href: `#class=${c.id}` }, c.name), " · ", t(c.learners === 1 ? "class.learnerCountOne" : "class.learnerCount", { n: c.learners }),
    " · ", t("class.exerciseCount", { n: c.exercises.length }), " · ", t("class.deadline"), " ", when(c.deadline))));
  const signOut = h("button", { type: "button", class: "ghost", onclick: () => { api.signOut(); void route(); } }, t("class.signOut"));
  main.append(h("h2", {}, t("class.yours")),
    result.value.data.length ? list : h("p", { class: "hint" }, t("class.none")),
    await newClassForm((c) => open(c.id)), signOut);
}

async function route(): Promise<void> {
  clear(main);
  if (!api.signedIn) { main.append(signInForm()); return; }
  const id = classIdFromHash();
  if (!id) { await classList(); return; }
  const board = new ClassBoard(api, id);
  main.append(h("p", {}, h("a", { href: "#" }, t("class.back"))), board.root);
  await board.load();
}

document.getElementById("app")!.append(pageHeader("class.teacherTitle"), main);
window.addEventListener("hashchange", () => void route());
onLang(() => { if (!classIdFromHash()) void route(); });
void route();
