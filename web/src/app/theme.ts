// The theme button: light and dark, the editor's colours with them.

import { h } from "../ui/dom";
import { t } from "../ui/i18n";
import { applyTheme, initialTheme, type Theme } from "../ui/theme";

export class ThemeToggle {
  theme: Theme = initialTheme();
  readonly button: HTMLButtonElement;

  constructor(private readonly onChange: (dark: boolean) => void) {
    applyTheme(this.theme);
    this.button = h("button", { type: "button", class: "pref", onclick: () => this.toggle() });
    this.render();
  }

  get dark(): boolean {
    return this.theme === "dark";
  }

  private toggle(): void {
    this.theme = this.dark ? "light" : "dark";
    applyTheme(this.theme);
    this.onChange(this.dark);
    this.render();
  }

  render(): void {
    this.button.textContent = this.dark ? "☀" : "☾";
    const label = this.dark ? t("action.theme.light") : t("action.theme.dark");
    this.button.setAttribute("aria-label", label);
    this.button.title = label;
  }
}
