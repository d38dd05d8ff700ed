// The layout worker: dagre runs here, so laying out a thousand boxes never blocks the page.
// One message in (an id and a LayoutRequest), one out (the id and a LayoutResult or an error).

import { runLayout, type LayoutRequest } from "./positions";

self.onmessage = (e: MessageEvent<{ id: number; request: LayoutRequest }>) => {
  const { id, request } = e.data;
  try {
    self.postMessage({ id, result: runLayout(request) });
  } catch (err) {
    self.postMessage({ id, error: String(err) });
  }
};
