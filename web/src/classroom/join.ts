// The learner's class page (join.html): join a class with the code the teacher gave (the link
// carries it: join.html#code=XXXX-XXXX-XXXX) under a display name only the teacher sees, and the
// classes joined, each exercise one click from the playground.

import "../styles.css";
import "./classroom.css";
import { resolveUrls } from "../config";
import { clear, h } from "../ui/dom";
import { onLang, t } from "../ui/i18n";
import { storage } from "../ui/storage";
import { LearnerApi, type JoinedClass } from "./api";
import { pageHeader, when } from "./chrome";

const api = new LearnerApi(resolveUrls().api);
const main = h("main", { id: "main", class: "class-main" });
const NAME_KEY = "kael.displayName";

function openExercise(id: string): void {
  storage.setMode("exercises");
  storage.setExercise(id);
  location.href = "./";
}

function joinedList(classes: JoinedClass[]): HTMLElement {
  if (!classes.length) return h("p", { class: "hint" }, t("class.notJoined"));
  return h("ul", { class: "class-list" }, classes.map((c) => h("li", {},
    h("strong", {}, c.name), " · ", t("class.youAre", { name: c.display_name }), " · ",
    t("class.deadline"), " ", when(c.deadline),
    h("ul", { class: "assigned" }, c.exercises.map((id) => h("li", {},
      h("button", { type: "button", class: "link", onclick: () => openExercise(id) }, id)))))));
}

async function draw(message = ""): Promise<void> {
  const code = h("input", { id: "join-code", autocomplete: "off", spellcheck: "false", maxlength: "40",
    value: new URLSearchParams(location.hash.replace(/^#/, "")).get("code") ?? "" });
  const name = h("input", { id: "display-name", maxlength: "60", value: localStorage.getItem(NAME_KEY) ?? "" });
  const note = h("p", { class: "class-status", role: "status" }, message);
  const form = h("form", { class: "class-form", onsubmit: async (event: Event) => {
    event.preventDefault();
    const result = await api.join(code.value, name.value);
    if (!result.ok) {
      note.textContent = result.status === 404 ? t("class.wrongCode")
        : result.status === 429 ? t("class.tooMany") : t("class.error", { message: result.message });
      return;
    }
    localStorage.setItem(NAME_KEY, name.value.trim());
    history.replaceState(null, "", location.pathname);
    void draw(t("class.joined", { name: result.value.name }));
  } },
  h("h2", {}, t("class.join")), h("p", {}, t("class.joinHelp")),
  h("label", { for: "join-code" }, t("class.joinCode")), code,
  h("label", { for: "display-name" }, t("class.displayName")), name,
  h("p", { class: "hint" }, t("class.displayNameHelp")),
  h("button", { type: "submit", class: "primary" }, t("class.joinButton")), note);
  const joined = await api.joined();
  clear(main);
  main.append(form, h("h2", {}, t("class.myClasses")),
    joined.ok ? joinedList(joined.value.data) : h("p", { role: "status" }, t("class.error", { message: joined.message })),
    h("p", { class: "hint" }, h("a", { href: "teacher.html" }, t("class.teacherLink"))));
}

document.getElementById("app")!.append(pageHeader("class.learnerTitle"), main);
onLang(() => void draw());
void draw();
