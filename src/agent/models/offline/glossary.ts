import { normalize } from './text.ts';

/** The glossary skill pack the orchestrator answers knowledge questions from (a real model reads the same file). */
export const GLOSSARY_PATH = '/skills/main/procurement-glossary/SKILL.md';

export interface GlossaryEntry {
  titleZh: string;
  titleEn: string;
  names: string[];
  zh: string;
  en: string;
}

/** The entries of the glossary file: `### 中文 · English`, an aka line, a Chinese and an English line. */
export function parseGlossary(text: string): GlossaryEntry[] {
  return text
    .split(/^### /m)
    .slice(1)
    .flatMap((block) => {
      const [title = '', ...lines] = block.split('\n');
      const [titleZh = '', titleEn = ''] = title.split(' · ').map((s) => s.trim());
      const field = (label: RegExp) =>
        lines
          .find((l) => label.test(l))
          ?.replace(label, '')
          .trim() ?? '';
      const aka = field(/^- 又称 \/ aka:/)
        .split(/[,，、]/)
        .map((s) => s.trim())
        .filter(Boolean);
      const zh = field(/^- 中文：/);
      const en = field(/^- English:/);
      if (!titleZh || !zh || !en) return [];
      return [{ titleZh, titleEn, names: [titleZh, titleEn, ...aka].map((n) => n.toLowerCase()), zh, en }];
    });
}

/** The entry a question asks about: the one whose longest name the question holds (Latin names as whole words). */
export function findTerm(entries: GlossaryEntry[], question: string): GlossaryEntry | undefined {
  const text = normalize(question).toLowerCase();
  let best: { entry: GlossaryEntry; length: number } | undefined;
  for (const entry of entries) {
    for (const name of entry.names) {
      const latin = /^[a-z0-9 .-]+$/.test(name);
      const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const found = latin
        ? new RegExp(`(?<![a-z])${escaped}(?:s|es|ed|ing|ings)?(?![a-z])`).test(text)
        : text.includes(name);
      if (found && (!best || name.length > best.length)) best = { entry, length: name.length };
    }
  }
  return best?.entry;
}

/** A short answer from one entry, in the user's language, saying where it comes from. */
export function termAnswer(entry: GlossaryEntry, english: boolean): string {
  return english
    ? `**${entry.titleEn}** (${entry.titleZh}): ${entry.en}\n\n(From Procura's procurement glossary, skills/main/procurement-glossary.)`
    : `**${entry.titleZh}（${entry.titleEn}）**：${entry.zh}\n\n${entry.en}\n\n（出自 Procura 采购术语表 skills/main/procurement-glossary / from the procurement glossary）`;
}

/** The answer when the glossary has no entry for the term: what it does cover. */
export function unknownTermAnswer(entries: GlossaryEntry[], english: boolean): string {
  const terms = entries.map((e) => (english ? e.titleEn : `${e.titleZh}（${e.titleEn}）`)).join(english ? ', ' : '、');
  return english
    ? `That term is not in Procura's procurement glossary. It covers: ${terms}.`
    : `Procura 的采购术语表里没有这个词条。已收录：${terms}。\nThat term is not in the glossary.`;
}
