import { describe, expect, it } from "vitest";
import { thrownError } from "./errors";

describe("an error thrown from Pyodide", () => {
  it("keeps the Python type and message", () => {
    const e = thrownError({ type: "RuntimeError", message: "Traceback ...\nRuntimeError: boom" });
    expect(e).toMatchObject({ type: "RuntimeError", lineno: null, frames: [] });
    expect(e.traceback).toBe("RuntimeError: Traceback ...\nRuntimeError: boom\n");
  });

  it("is a stop when a KeyboardInterrupt caused it (a conversion cut short by Stop)", () => {
    const message =
      "Traceback (most recent call last):\n\n4 library frames (worker.js, <frozen abc>)\nKeyboardInterrupt\n\n" +
      "The above exception was the direct cause of the following exception:\n\n" +
      "pyodide.ffi.ConversionError: Conversion from python to javascript failed\n";
    expect(thrownError({ type: "ConversionError", message }).type).toBe("KeyboardInterrupt");
  });

  it("is not a stop for a message that only mentions one", () => {
    expect(thrownError({ type: "ValueError", message: "ValueError: no KeyboardInterrupt here" }).type).toBe("ValueError");
    expect(thrownError(new TypeError("x is undefined")).type).toBe("TypeError");
  });
});
