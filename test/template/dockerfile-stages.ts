import {
  DockerfileParser,
  type Copy,
  type From,
  type Instruction,
  type JSONInstruction,
  type PropertyInstruction,
} from 'dockerfile-ast';

/** One build step the replay performs, in Dockerfile order. */
export type ReplayStep =
  | { readonly kind: 'workdir'; readonly line: number; readonly path: string }
  | { readonly kind: 'env'; readonly line: number; readonly values: Readonly<Record<string, string>> }
  | {
      readonly kind: 'copy';
      readonly line: number;
      readonly from?: string;
      readonly sources: readonly string[];
      readonly destination: string;
    }
  | { readonly kind: 'run'; readonly line: number; readonly command: string };

/** One `FROM … AS name` stage of a Dockerfile, as the replay needs it. */
export interface DockerfileStage {
  readonly name: string;
  readonly steps: readonly ReplayStep[];
  /** The exec-form `CMD` of the stage, if it has one. */
  readonly cmd?: readonly string[];
}

/** Instructions that change nothing the replay can observe on a host: metadata of the image. */
const METADATA_ONLY = new Set(['ARG', 'EXPOSE', 'VOLUME', 'USER', 'LABEL', 'STOPSIGNAL']);

/**
 * Parses a Dockerfile with dockerfile-ast into its stages and the steps the replay performs.
 * Anything the replay cannot perform faithfully (ADD, SHELL, ENTRYPOINT, HEALTHCHECK, ONBUILD, a
 * shell-form CMD, heredocs, a stage without a name) throws, naming the line, so a change to the
 * Dockerfile that the replay does not cover cannot pass unnoticed.
 * @param text the Dockerfile
 */
export function parseDockerfileStages(text: string): DockerfileStage[] {
  const stages: { name: string; steps: ReplayStep[]; cmd?: readonly string[] }[] = [];
  for (const instruction of DockerfileParser.parse(text).getInstructions()) {
    const keyword = instruction.getKeyword();
    const line = instruction.getRange().start.line + 1;
    const unsupported = (why: string) =>
      new Error(`Dockerfile line ${line}: ${keyword} ${why}; the replay cannot perform it`);
    if (keyword === 'FROM') {
      const name = (instruction as From).getBuildStage();
      if (!name) throw unsupported('has no `AS <name>`');
      stages.push({ name, steps: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (stage === undefined) {
      if (keyword === 'ARG') continue;
      throw unsupported('comes before the first FROM');
    }
    if (METADATA_ONLY.has(keyword)) continue;
    if (keyword === 'WORKDIR') stage.steps.push({ kind: 'workdir', line, path: argumentValues(instruction).join(' ') });
    else if (keyword === 'ENV')
      stage.steps.push({ kind: 'env', line, values: properties(instruction as PropertyInstruction) });
    else if (keyword === 'RUN') {
      const command = instruction.getRawArgumentsContent();
      if (command === null || command.trimStart().startsWith('[') || command.includes('<<'))
        throw unsupported('is not a plain shell-form command');
      stage.steps.push({ kind: 'run', line, command: command.replace(/\\\r?\n/g, ' ') });
    } else if (keyword === 'COPY') stage.steps.push(copyStep(instruction as Copy, line, unsupported));
    else if (keyword === 'CMD') {
      const strings = (instruction as JSONInstruction).getJSONStrings().map((argument) => argument.getJSONValue());
      if (strings.length === 0) throw unsupported('is not in exec form');
      stage.cmd = strings;
    } else throw unsupported('is not supported');
  }
  return stages;
}

function copyStep(instruction: Copy, line: number, unsupported: (why: string) => Error): ReplayStep {
  let from: string | undefined;
  for (const flag of instruction.getFlags()) {
    const name = flag.getName();
    if (name === 'from') from = flag.getValue() ?? undefined;
    else if (name !== 'chown' && name !== 'chmod') throw unsupported(`has the flag --${name}`);
  }
  if (instruction.getHeredocs().length > 0) throw unsupported('has a heredoc');
  const values = argumentValues(instruction);
  const destination = values.pop();
  if (destination === undefined || values.length === 0) throw unsupported('needs a source and a destination');
  return { kind: 'copy', line, ...(from === undefined ? {} : { from }), sources: values, destination };
}

function argumentValues(instruction: Instruction): string[] {
  return instruction.getArguments().map((argument) => argument.getValue());
}

function properties(instruction: PropertyInstruction): Record<string, string> {
  return Object.fromEntries(
    instruction.getProperties().map((property) => [property.getName(), property.getValue() ?? '']),
  );
}
