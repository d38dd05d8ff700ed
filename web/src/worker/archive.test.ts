import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { writeArchive, type ArchiveFS } from "./archive";

/** Pyodide's FS as far as writeArchive uses it: folders made and files written, by path. */
function memoryFS() {
  const dirs = new Set<string>();
  const files = new Map<string, Uint8Array>();
  const fs: ArchiveFS = {
    mkdirTree: (path) => {
      dirs.add(path.replace(/\/+$/, ""));
    },
    writeFile: (path, data) => {
      const parent = path.slice(0, path.lastIndexOf("/"));
      if (parent !== "/site" && !dirs.has(parent)) throw new Error(`ENOENT: ${parent} was not made before ${path}`);
      files.set(path, data);
    },
  };
  return { fs, dirs, files };
}

function zip(entries: Record<string, Uint8Array>): ArrayBuffer {
  const bytes = zipSync(entries);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

describe("writeArchive (a wheel or its precompiled modules into Pyodide's file system)", () => {
  it("writes every file with its bytes, in folders made first, and says how many", () => {
    const pyc = new Uint8Array([0xa7, 0x0d, 0x0d, 0x0a, 3, 0, 0, 0, 0xff, 0x00]);
    const { fs, dirs, files } = memoryFS();
    const count = writeArchive(fs, "/site", zip({
      "kael/__init__.py": strToU8("from .tensor import Tensor\n"),
      "kael/__pycache__/tensor.cpython-314.pyc": pyc,
      "kael-0.1.0.dist-info/METADATA": strToU8("Name: kael\n"),
      "top.py": strToU8("x = 1\n"),
      "kael/empty/": new Uint8Array(0),
    }));
    expect(count).toBe(4);
    expect(new TextDecoder().decode(files.get("/site/kael/__init__.py"))).toBe("from .tensor import Tensor\n");
    expect([...files.get("/site/kael/__pycache__/tensor.cpython-314.pyc")!]).toEqual([...pyc]);
    expect(files.has("/site/kael-0.1.0.dist-info/METADATA")).toBe(true);
    expect(files.has("/site/top.py")).toBe(true);
    expect(dirs).toContain("/site/kael/empty");
  });

  it("refuses an entry that would land outside the folder, and writes nothing", () => {
    for (const name of ["../evil.py", "kael/../../evil.py", "/etc/evil.py", "kael/./x/../../../evil.py"]) {
      const { fs, files } = memoryFS();
      expect(() => writeArchive(fs, "/site", zip({ "ok.py": strToU8("1"), [name]: strToU8("2") }))).toThrow(/outside/);
      expect(files.size).toBe(0);
    }
  });

  it("says so when the bytes are not a zip archive", () => {
    const { fs } = memoryFS();
    expect(() => writeArchive(fs, "/site", new TextEncoder().encode("<html>not found</html>").buffer as ArrayBuffer)).toThrow();
  });
});
