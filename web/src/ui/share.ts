// Share links: the code, compressed with lz-string, in the URL fragment (#code=...), so it never
// reaches a server and a link opens the same program.

import { compressToEncodedURIComponent, decompressFromEncodedURIComponent } from "lz-string";

const PREFIX = "code=";

export function shareUrl(code: string, base: string = location.href): string {
  const url = new URL(base);
  url.hash = PREFIX + compressToEncodedURIComponent(code);
  return url.href;
}

/** The code carried by a share link's fragment, or null. */
export function codeFromHash(hash: string = location.hash): string | null {
  const fragment = hash.replace(/^#/, "");
  if (!fragment.startsWith(PREFIX)) return null;
  const code = decompressFromEncodedURIComponent(fragment.slice(PREFIX.length));
  return typeof code === "string" && code.length > 0 ? code : null;
}
