// Types of kernels.mjs (plain JavaScript, so that Node runs the same file).

type Floats = Float32Array | Float64Array;

export const ABI: number;
export function matmulArrays(
  a: Floats, b: Floats, out: Floats, aOffsets: ArrayLike<number>, bOffsets: ArrayLike<number>,
  m: number, k: number, n: number, sa0: number, sa1: number, sb0: number, sb1: number,
): void;
export function matmul(
  a: unknown, b: unknown, out: unknown, aOffsets: unknown, bOffsets: unknown,
  m: number, k: number, n: number, sa0: number, sa1: number, sb0: number, sb1: number,
): void;
export function matmulRowsOf(
  a: Floats, b: Floats, out: Floats, aOffsets: ArrayLike<number>, bOffsets: ArrayLike<number>,
  m: number, k: number, n: number, sa0: number, sa1: number, sb0: number, sb1: number,
  rowStart: number, rowEnd: number,
): void;
export function matmulRows(
  a: unknown, b: unknown, out: unknown, aOffsets: unknown, bOffsets: unknown,
  m: number, k: number, n: number, sa0: number, sa1: number, sb0: number, sb1: number,
  rowStart: number, rowEnd: number,
): void;
