// The page-wide keys: Ctrl+Enter runs from anywhere outside the editor (the editor binds its
// own), Escape closes the share panel.

import type { SharePanel } from "./sharing";

export function globalKeys(p: { run: () => void; sharePanel: SharePanel }): void {
  document.addEventListener("keydown", (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key === "Enter" && !(e.target as HTMLElement).closest(".cm-editor")) {
      e.preventDefault();
      p.run();
    }
    if (e.key === "Escape" && p.sharePanel.open) p.sharePanel.hide();
  });
}
