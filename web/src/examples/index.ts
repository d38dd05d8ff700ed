// The examples gallery: each a complete program, sized for the pure-Python backend.

import activationMemory from "./programs/activation_memory.py?raw";
import broadcastBias from "./programs/broadcast_bias.py?raw";
import deepChain from "./programs/deep_chain.py?raw";
import diamond from "./programs/diamond.py?raw";
import graphWalk from "./programs/graph_walk.py?raw";
import inferenceMode from "./programs/inference_mode.py?raw";
import inplaceError from "./programs/inplace_error.py?raw";
import repeatedInput from "./programs/repeated_input.py?raw";
import savedTensors from "./programs/saved_tensors.py?raw";
import siluMul from "./programs/silumul.py?raw";
import twoMoons from "./programs/two_moons.py?raw";

export interface Example {
  id: string;
  title: { en: string; zh: string };
  summary: { en: string; zh: string };
  view: "trace" | "graph" | "console" | "plot" | "memory"; // the tab worth looking at after a run
  code: string;
}

export const EXAMPLES: Example[] = [
  {
    id: "diamond",
    title: { en: "The diamond trace (ADR 0005)", zh: "菱形追踪（ADR 0005）" },
    summary: {
      en: "x feeds two paths; step through the five engine steps to x.grad = [5, 5].",
      zh: "x 走两条路径；逐步查看引擎的五步，直到 x.grad = [5, 5]。",
    },
    view: "trace",
    code: diamond,
  },
  {
    id: "graph-walk",
    title: { en: "Walking grad_fn.next_functions", zh: "沿 grad_fn.next_functions 遍历" },
    summary: {
      en: "The notebook's walk over the recorded graph and what MulBackward saved.",
      zh: "笔记中的计算图遍历，以及 MulBackward 保存了什么。",
    },
    view: "graph",
    code: graphWalk,
  },
  {
    id: "saved-tensors",
    title: { en: "Saved tensors and checkpointing", zh: "保存的张量与激活重计算" },
    summary: {
      en: "Count activation memory with saved_tensors_hooks; checkpoint trades it for a recompute.",
      zh: "用 saved_tensors_hooks 统计激活内存；checkpoint 用重算换内存。",
    },
    view: "graph",
    code: savedTensors,
  },
  {
    id: "activation-memory",
    title: { en: "Activation memory over time", zh: "激活内存随时间变化" },
    summary: {
      en: "The notebook's bytes saved for backward and freed by it, with and without checkpoint: 5 tensors vs 3 (14 large matrix products).",
      zh: "笔记中为反向传播保存、又在反向中释放的字节数，有无 checkpoint：5 个张量对 3 个（14 次大矩阵乘法）。",
    },
    view: "memory",
    code: activationMemory,
  },
  {
    id: "silumul",
    title: { en: "SiluMul Function + gradcheck", zh: "SiluMul 自定义 Function 与 gradcheck" },
    summary: {
      en: "A fused autograd.Function with a hand-written backward, checked in float64.",
      zh: "手写反向的融合 autograd.Function，用 float64 检查。",
    },
    view: "graph",
    code: siluMul,
  },
  {
    id: "inference-mode",
    title: { en: "no_grad vs inference_mode", zh: "no_grad 与 inference_mode" },
    summary: {
      en: "Both stop recording; only inference_mode makes inference tensors.",
      zh: "两者都不记录计算图；只有 inference_mode 产生 inference 张量。",
    },
    view: "console",
    code: inferenceMode,
  },
  {
    id: "inplace-error",
    title: { en: "The in-place version error", zh: "原地修改的版本错误" },
    summary: {
      en: "Modify a saved tensor in place and watch backward refuse the stale value.",
      zh: "原地修改一个被保存的张量，看反向传播如何拒绝过期的值。",
    },
    view: "trace",
    code: inplaceError,
  },
  {
    id: "repeated-input",
    title: { en: "Repeated input: x * x", zh: "重复输入：x * x" },
    summary: {
      en: "Two edges into one AccumulateGrad: its count is 2 and the gradients add.",
      zh: "两条边进入同一个 AccumulateGrad：计数为 2，梯度相加。",
    },
    view: "trace",
    code: repeatedInput,
  },
  {
    id: "broadcast-bias",
    title: { en: "Broadcasting a bias", zh: "广播偏置的梯度" },
    summary: {
      en: "A [4] bias on a [32, 4] matrix gets its gradient summed back to [4].",
      zh: "[32, 4] 矩阵上的 [4] 偏置，梯度被求和还原为 [4]。",
    },
    view: "trace",
    code: broadcastBias,
  },
  {
    id: "deep-chain",
    title: { en: "A deep chain (20,000 nodes)", zh: "很深的链（20,000 个节点）" },
    summary: {
      en: "Backward and freeing use explicit stacks: no RecursionError.",
      zh: "反向传播和释放都用显式栈：不会 RecursionError。",
    },
    view: "console",
    code: deepChain,
  },
  {
    id: "two-moons",
    title: { en: "Train an MLP on two moons", zh: "在双月数据上训练 MLP" },
    summary: {
      en: "Adam on a small MLP; each step's loss is drawn live by itself, with the decision boundary.",
      zh: "用 Adam 训练小型 MLP；每步的损失自动实时绘制，并画出决策边界。",
    },
    view: "plot",
    code: twoMoons,
  },
];

export const DEFAULT_CODE = diamond;
