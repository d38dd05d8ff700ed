// An error thrown from Pyodide into the worker's JavaScript (not one the run's own Python code
// caught and reported as data), as the page's PyError.

import type { PyError } from "./protocol";

/**
 * `error` as a PyError. A Stop whose KeyboardInterrupt lands outside the run's own `try` (while
 * the worker imports `playground` or converts a value for JavaScript) comes back wrapped, e.g. a
 * ConversionError "caused by" it: it is still a stop, and the page must say Stopped, not show
 * the wrapper (an e2e run under load saw "ConversionError ... KeyboardInterrupt").
 */
export function thrownError(error: unknown): PyError {
  const e = error as { type?: string; message?: string; name?: string };
  const message = String(e?.message ?? error);
  let type = e?.type ?? e?.name ?? "Error";
  if (type !== "KeyboardInterrupt" && /^KeyboardInterrupt\b/m.test(message)) type = "KeyboardInterrupt";
  return { type, message, traceback: `${type}: ${message}\n`, frames: [], lineno: null };
}
