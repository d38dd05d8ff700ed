import { unzipSync } from "fflate";

/** What writeArchive needs of Pyodide's (Emscripten's) file system. */
export interface ArchiveFS {
  mkdirTree(path: string): void;
  writeFile(path: string, data: Uint8Array): void;
}

/**
 * Writes the files of a zip archive (the kael wheel, or its precompiled modules) below `dir` in
 * Pyodide's file system, from JavaScript: fflate inflates them and the file system keeps them
 * in JavaScript memory, so nothing runs in Python. (Pyodide's `unpackArchive` goes through
 * Python's `shutil` and `zipfile` in wasm: 0.3-1 s for the wheel and as much for the bytecode on a
 * loaded machine, where this takes milliseconds.) The archive is checked whole before anything
 * is written: an entry that would land outside `dir` (`..`, an absolute path) is an error.
 * Returns the number of files written.
 */
export function writeArchive(fs: ArchiveFS, dir: string, archive: ArrayBuffer): number {
  const entries = Object.entries(unzipSync(new Uint8Array(archive)));
  for (const [name] of entries) {
    if (name.startsWith("/") || name.split("/").includes("..")) {
      throw new Error(`the archive has an entry outside its folder: ${JSON.stringify(name)}`);
    }
  }
  const made = new Set<string>();
  const folder = (path: string) => {
    if (path && !made.has(path)) {
      fs.mkdirTree(`${dir}/${path}`);
      made.add(path);
    }
  };
  let count = 0;
  for (const [name, data] of entries) {
    if (name.endsWith("/")) {
      folder(name.slice(0, -1));
      continue;
    }
    folder(name.slice(0, Math.max(0, name.lastIndexOf("/"))));
    fs.writeFile(`${dir}/${name}`, data);
    count += 1;
  }
  return count;
}
