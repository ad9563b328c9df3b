/** Prompts to check: one prompt, or one per role (`{planner: '…', writer: '…'}`). */
export type PromptSet = string | Readonly<Record<string, string>>;

const PLACEHOLDER = /(?<!\{)\{[A-Za-z_][\w.]*\}(?!\})/g;
const normalise = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();

/** The problems `assertPinnedPhrases` would throw for, as a list (empty when all is well). */
export function findPinnedPhraseProblems(
  prompts: PromptSet,
  pinned: Readonly<Record<string, string | readonly string[]>>,
): string[] {
  const byRole: Record<string, string> = typeof prompts === 'string' ? { prompt: prompts } : { ...prompts };
  const problems: string[] = [];
  const combined = normalise(Object.values(byRole).join('\n'));
  for (const [rule, phrases] of Object.entries(pinned)) {
    for (const phrase of typeof phrases === 'string' ? [phrases] : phrases) {
      if (!combined.includes(normalise(phrase)))
        problems.push(
          `rule "${rule}" is enforced in code but the prompt does not state it: missing ${JSON.stringify(phrase)}`,
        );
    }
  }
  for (const [role, text] of Object.entries(byRole)) {
    for (const match of text.matchAll(PLACEHOLDER))
      problems.push(`${role} prompt has an unfilled placeholder ${match[0]}`);
  }
  const seen = new Map<string, string>();
  for (const [role, text] of Object.entries(byRole)) {
    const key = normalise(text);
    const twin = seen.get(key);
    if (twin !== undefined) problems.push(`${role} and ${twin} prompts are identical: each role needs its own prompt`);
    else seen.set(key, role);
  }
  return problems;
}

/**
 * Asserts that every rule the code enforces is stated in the prompt, that no `{placeholder}`
 * is left unfilled, and that no two role prompts are identical. Throws one error listing
 * every problem. Matching ignores case and runs of white space.
 * @param prompts the rendered prompt, or one per role
 * @param pinned rule name → the phrase (or phrases) that state it
 * @example
 * assertPinnedPhrases(systemPrompt, { no_medical_advice: 'never give medical advice' });
 */
export function assertPinnedPhrases(
  prompts: PromptSet,
  pinned: Readonly<Record<string, string | readonly string[]>>,
): void {
  const problems = findPinnedPhraseProblems(prompts, pinned);
  if (problems.length > 0)
    throw new Error(`Prompt check failed:\n${problems.map((problem) => `- ${problem}`).join('\n')}`);
}
