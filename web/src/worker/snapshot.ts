// The build's memory snapshot (made by scripts/snapshot.mjs): its manifest, whether it fits
// the page, and its bytes, inflated and checked. worker.ts restores Python from it.

import { SITE_FILES } from "./site_files";

/** The manifest format this page reads (scripts/snapshot.mjs writes it). */
const SNAPSHOT_FORMAT = 1;

/** What the snapshot must have been made for: this page's Pyodide, environment, JavaScript
 * objects (by name) and kael wheel. */
export interface Page {
  version: string;
  pyodideUrl: string;
  wheel: Promise<ArrayBuffer>;
  env: Record<string, string>;
  objects: string[];
}

/** The first line of an error's message: what a fallback's reason quotes of it. */
export function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).trim().split("\n")[0];
}

export interface Manifest {
  format: number;
  pyodide: string;
  buildId: string;
  wasmSha256: string;
  snapshotSha256: string;
  wheelSha256: string;
  bytes: number;
  env: Record<string, string>;
  objects: string[];
  siteFiles: Record<string, string>; // the SHA-256 of each site file the snapshot imported
}

export async function fetchManifest(url: string): Promise<Manifest | string> {
  try {
    const response = await fetch(url);
    if (!response.ok) return `there is no snapshot manifest (HTTP ${response.status})`;
    return (await response.json()) as Manifest;
  } catch (error) {
    return `the snapshot manifest could not be read: ${firstLine(error)}`;
  }
}

/** Why the snapshot does not fit this page, or null. Pyodide checks the build id again when it
 * restores the snapshot (it is in the snapshot's header); this check saves the download. */
export async function snapshotMismatch(manifest: Manifest | string, page: Page) {
  const { version, pyodideUrl, wheel } = page;
  if (typeof manifest === "string") return manifest;
  if (manifest.format !== SNAPSHOT_FORMAT) return `the snapshot is in format ${manifest.format}, this page reads ${SNAPSHOT_FORMAT}`;
  if (manifest.pyodide !== version) return `the snapshot was made by Pyodide ${manifest.pyodide}, this page runs ${version}`;
  const buildId = await pyodideBuildId(pyodideUrl);
  if (manifest.buildId !== buildId) return `the snapshot was made by Pyodide build ${manifest.buildId.slice(0, 12)}, this page runs build ${buildId.slice(0, 12)}`;
  if (JSON.stringify(manifest.env) !== JSON.stringify(page.env)) return "the snapshot was made with another environment";
  if (JSON.stringify(manifest.objects) !== JSON.stringify(page.objects)) return "the snapshot refers to other JavaScript objects than this page has";
  const wheelHash = await sha256(new Uint8Array(await wheel.catch(() => new ArrayBuffer(0))));
  if (manifest.wheelSha256 !== wheelHash) return "the snapshot imported another build of kael than the wheel this page was served";
  return staleSiteFile(manifest.siteFiles ?? {});
}

/** Why the snapshot's playground is not this page's (it was made from other site files), or null. */
async function staleSiteFile(recorded: Record<string, string>): Promise<string | null> {
  const names = SITE_FILES.map((file) => file.name);
  if (JSON.stringify(Object.keys(recorded)) !== JSON.stringify(names)) {
    return `the snapshot was made from the site files ${Object.keys(recorded).join(", ") || "(none named)"}, this page has ${names.join(", ")}`;
  }
  for (const { name, text } of SITE_FILES) {
    if (recorded[name] !== (await sha256(new TextEncoder().encode(text)))) return `the snapshot was made with another ${name} than this page's`;
  }
  return null;
}

/** The build id Pyodide writes into a snapshot and checks on restore, read from pyodide.mjs
 * (in the HTTP cache or the offline cache: the worker has just imported it). */
async function pyodideBuildId(pyodideUrl: string): Promise<string> {
  const source = await fetch(`${pyodideUrl}pyodide.mjs`).then((response) => response.text());
  return /BUILD_ID:"([0-9a-f]{64})"/.exec(source)?.[1] ?? "unknown";
}

async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Why the snapshot cannot be used, found by the worker itself (not by Pyodide's restore). */
export class SnapshotUnfit extends Error {}

/** The snapshot's bytes, inflated (gzip's CRC catches a damaged file; a host that already
 * decoded it leaves the SHA-256 to check). Rejects with the reason it cannot be used. */
export async function fetchSnapshot(url: string, manifest: Manifest): Promise<Uint8Array> {
  const response = await fetch(url);
  if (!response.ok) throw new SnapshotUnfit(`the snapshot is missing (HTTP ${response.status})`);
  let body: Uint8Array<ArrayBuffer>;
  try {
    body = new Uint8Array(await response.arrayBuffer());
  } catch (error) {
    throw new SnapshotUnfit(`the snapshot is damaged (it could not be read: ${firstLine(error)})`);
  }
  if (body[0] !== 0x1f || body[1] !== 0x8b) {
    if (body.length !== manifest.bytes || (await sha256(body)) !== manifest.snapshotSha256) {
      throw new SnapshotUnfit("the snapshot is damaged (its SHA-256 is not its manifest's)");
    }
    return body;
  }
  const bytes = new Uint8Array(manifest.bytes);
  let length = 0;
  try {
    const reader = new Blob([body]).stream().pipeThrough(new DecompressionStream("gzip")).getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      if (length + chunk.value.length > bytes.length) throw new Error("longer than its manifest says");
      bytes.set(chunk.value, length);
      length += chunk.value.length;
    }
  } catch (error) {
    throw new SnapshotUnfit(`the snapshot is damaged (${firstLine(error)})`);
  }
  if (length !== bytes.length) throw new SnapshotUnfit(`the snapshot is damaged (${length} bytes, not ${bytes.length})`);
  return bytes;
}
