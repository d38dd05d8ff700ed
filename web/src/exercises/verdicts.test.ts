import { describe, expect, it } from "vitest";
import vocabulary from "../../../exercises/harness/verdicts.json";
import { setLang, t } from "../ui/i18n";
import { STATUSES, VERDICTS } from "./verdicts";

describe("the verdict vocabulary", () => {
  it("is the harness's verdicts.json, in order", () => {
    expect([...VERDICTS]).toEqual(Object.values(vocabulary.verdicts));
    expect([...STATUSES]).toEqual(vocabulary.statuses);
  });

  it("has its words in both languages", () => {
    for (const lang of ["en", "zh"] as const) {
      setLang(lang);
      for (const v of VERDICTS) expect(t(`verdict.${v}`)).not.toBe(`verdict.${v}`);
      for (const s of STATUSES) expect(t(`test.${s}`)).not.toBe(`test.${s}`);
    }
    setLang("en");
  });
});
