// kael's JavaScript kernels (issue 26.2): in Pyodide, kael's pure-Python backend hands large float
// matmuls to these over typed arrays (kael/backend/pyarray/js_kernel.py holds the Python side and
// the contract). The host registers this module as `_kael_kernels` before kael is imported:
// worker.ts in the page, tests/pyodide/run.mjs in the Pyodide test lane. Plain JavaScript, so
// that Node imports the same file the page bundles.
//
// Results are bit-identical to the pure-Python path: each output element is summed in the same
// order, ((0.0 + a0 * b0) + a1 * b1) + ..., in float64 (JavaScript neither reassociates nor
// fuses a multiply and an add), and a float32 result is rounded once at the end, as
// array("f") rounds the Python path's float64 sums.

/** The contract's version: js_kernel.py uses the module only when it names the one it speaks. */
export const ABI = 1;

/**
 * out[t, i, j] = sum over p in order of a[aOffsets[t] + i*sa0 + p*sa1] * b[bOffsets[t] + p*sb0 + j*sb1],
 * for each matrix t of the batch; `out` is C-contiguous (batch, m, n). Offsets and strides are in
 * elements; any of them may be 0 (broadcast) or negative.
 *
 * @param {Float32Array | Float64Array} a
 * @param {Float32Array | Float64Array} b
 * @param {Float32Array | Float64Array} out
 * @param {ArrayLike<number>} aOffsets
 * @param {ArrayLike<number>} bOffsets
 */
export function matmulArrays(a, b, out, aOffsets, bOffsets, m, k, n, sa0, sa1, sb0, sb1) {
  matmulRowsOf(a, b, out, aOffsets, bOffsets, m, k, n, sa0, sa1, sb0, sb1, 0, aOffsets.length * m);
}

/**
 * The rows [rowStart, rowEnd) of matmulArrays's result, counted over the whole batch (row r is row
 * r % m of matrix floor(r / m)), written where matmulArrays writes them: a long product computed
 * a slice at a time (js_kernel.py reports its progress between slices) gives the same bits.
 */
export function matmulRowsOf(a, b, out, aOffsets, bOffsets, m, k, n, sa0, sa1, sb0, sb1, rowStart, rowEnd) {
  const sums = new Float64Array(n);
  for (let r = rowStart; r < rowEnd; r++) {
    const t = Math.floor(r / m);
    const ai = aOffsets[t] + (r - t * m) * sa0;
    const b0 = bOffsets[t];
    sums.fill(0);
    for (let p = 0; p < k; p++) {
      const x = a[ai + p * sa1];
      const bp = b0 + p * sb0;
      if (sb1 === 1) for (let j = 0; j < n; j++) sums[j] += x * b[bp + j];
      else for (let j = 0; j < n; j++) sums[j] += x * b[bp + j * sb1];
    }
    out.set(sums, r * n); // into a Float32Array: each sum rounded to nearest, ties to even
  }
}

/**
 * The same on Python buffers (PyProxies of array.array objects, as Pyodide passes them): each is
 * read and written in place through getBuffer, a view of the interpreter's memory, no copy.
 */
export function matmul(a, b, out, aOffsets, bOffsets, m, k, n, sa0, sa1, sb0, sb1) {
  onBuffers([a, b, out, aOffsets, bOffsets], (va, vb, vo, vao, vbo) =>
    matmulArrays(va, vb, vo, vao, vbo, m, k, n, sa0, sa1, sb0, sb1));
}

/** matmulRowsOf on Python buffers, as matmul. */
export function matmulRows(a, b, out, aOffsets, bOffsets, m, k, n, sa0, sa1, sb0, sb1, rowStart, rowEnd) {
  onBuffers([a, b, out, aOffsets, bOffsets], (va, vb, vo, vao, vbo) =>
    matmulRowsOf(va, vb, vo, vao, vbo, m, k, n, sa0, sa1, sb0, sb1, rowStart, rowEnd));
}

function onBuffers(proxies, fn) {
  const views = [];
  try {
    for (const proxy of proxies) views.push(proxy.getBuffer());
    fn(...views.map((view) => view.data));
  } finally {
    for (const view of views) view.release();
  }
}
