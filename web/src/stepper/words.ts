// The stepper's words, in the page's two languages.

import { currentLang } from "../ui/i18n";

const en = {
  "fwd.position": "Forward step {step} of {total} · line {line}",
  "bwd.position": "Backward step {step} of {total}",
  "fwd.title": "Line {line}: {code}",
  "fwd.recorded": "Recorded by this line",
  "fwd.recorded.none": "no node (nothing here needs a gradient)",
  "fwd.saved": "Saved for backward by this line",
  "fwd.held": "Held by saved tensors: {bytes}",
  "fwd.locals": "Tensor variables after this line",
  "fwd.locals.none": "no tensor variables yet",
  "fwd.more": "+{n} more",
  "fwd.col.step": "step",
  "fwd.col.line": "line",
  "fwd.col.code": "code",
  "fwd.col.nodes": "recorded",
  "fwd.col.held": "saved bytes held",
  "fwd.col.name": "name",
  "fwd.col.shape": "shape",
  "fwd.col.dtype": "dtype",
  "fwd.col.rg": "requires_grad",
  "fwd.col.fn": "grad_fn",
  "fwd.col.version": "version",
  "fwd.cut": "The recording stopped after {max} lines (at line {line}); the program itself ran to its end. Step through a shorter loop to see it all.",
  "fwd.stopped": "Stop ended the run: the steps up to there.",
  "fwd.table": "Forward steps: the lines of your program, in the order they ran",
  "fwd.steps": "Steps",
  "fwd.record": "Step through my code (record the forward pass)",
  "fwd.record.run": "Record and step",
  "fwd.none": "The forward pass was recorded but made no graph: no tensor required a gradient.",
  "fwd.then": "Then backward: the trace continues on this graph.",
  "fwd.note.step": "step {step}: {what}",
  "fwd.note.made": "records {nodes}",
  "fwd.note.nothing": "records nothing",
  "fwd.note.recorded": "recorded {node}",
  "mark.saved": "{node} saved this tensor here, at version {then}",
  "mark.modified": "modified in place here: version {then} → {now}",
  "mark.backward": "backward found version {now}, expected {then}: RuntimeError",
  "source.switch": "name lines in autograd errors",
};

type Key = keyof typeof en;

const zh: Record<Key, string> = {
  "fwd.position": "前向第 {step} 步，共 {total} 步 · 第 {line} 行",
  "bwd.position": "反向第 {step} 步，共 {total} 步",
  "fwd.title": "第 {line} 行：{code}",
  "fwd.recorded": "这一行记录的节点",
  "fwd.recorded.none": "没有节点（这里没有需要梯度的张量）",
  "fwd.saved": "这一行为反向保存的张量",
  "fwd.held": "保存的张量占用：{bytes}",
  "fwd.locals": "这一行之后的张量变量",
  "fwd.locals.none": "还没有张量变量",
  "fwd.more": "还有 {n} 个",
  "fwd.col.step": "步",
  "fwd.col.line": "行",
  "fwd.col.code": "代码",
  "fwd.col.nodes": "记录的节点",
  "fwd.col.held": "保存的字节",
  "fwd.col.name": "名字",
  "fwd.col.shape": "形状",
  "fwd.col.dtype": "类型",
  "fwd.col.rg": "requires_grad",
  "fwd.col.fn": "grad_fn",
  "fwd.col.version": "版本",
  "fwd.cut": "记录在 {max} 行后停止（停在第 {line} 行）；程序本身已运行到结束。换一个更短的循环就能看到全部。",
  "fwd.stopped": "运行被“停止”结束：这里是到那时为止的步骤。",
  "fwd.table": "前向步骤：程序的各行，按运行顺序",
  "fwd.steps": "步骤",
  "fwd.record": "逐行查看我的代码（记录前向传播）",
  "fwd.record.run": "记录并逐步查看",
  "fwd.none": "前向传播已记录，但没有生成计算图：没有张量需要梯度。",
  "fwd.then": "然后是反向：追踪在这张图上继续。",
  "fwd.note.step": "第 {step} 步：{what}",
  "fwd.note.made": "记录了 {nodes}",
  "fwd.note.nothing": "没有记录节点",
  "fwd.note.recorded": "记录了 {node}",
  "mark.saved": "{node} 在这里保存了这个张量，版本 {then}",
  "mark.modified": "在这里被原地修改：版本 {then} → {now}",
  "mark.backward": "反向时发现版本是 {now}，应为 {then}：RuntimeError",
  "source.switch": "在自动求导错误中标出代码行",
};

export type StepperKey = Key;

export function sw(key: Key, vars: Record<string, string | number> = {}): string {
  const text = (currentLang() === "zh" ? zh[key] : undefined) ?? en[key];
  return text.replace(/\{(\w+)\}/g, (_, name: string) => (name in vars ? String(vars[name]) : `{${name}}`));
}
