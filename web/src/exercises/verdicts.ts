// The verdicts and test statuses as TypeScript types. The one definition is
// exercises/harness/verdicts.json (Python reads it through harness/vocabulary.py); TypeScript
// cannot take literal types from a JSON import, so the lists are written here once more and
// ./verdicts.test.ts fails unless they equal the JSON's, in order.

export const VERDICTS = [
  "Accepted",
  "Wrong Answer",
  "Runtime Error",
  "Time Limit Exceeded",
  "Memory Limit Exceeded",
  "Syntax Error",
] as const;
export type Verdict = (typeof VERDICTS)[number];

export const STATUSES = ["passed", "failed", "error"] as const;
export type TestStatus = (typeof STATUSES)[number];
