import { defineCommand } from 'citty';
import { printFailure, printJson, sharedArgs, startCommand, verbMeta } from './_shared.js';

const args = {
  dir: {
    type: 'positional',
    description: 'The actor folder, whose evals/ holds the cases',
    required: false,
    default: '.',
  },
  repeat: { type: 'string', description: 'Runs per case; the pass rate is passed runs / runs (default 1)' },
  concurrency: { type: 'string', description: 'Runs at once (default 4)' },
  url: {
    type: 'string',
    description:
      "A running actor's base URL, or an instance's edge URL as actorkit platform prints it (…/api/v1/k/<ref>/), instead of the actor in this process",
  },
  key: { type: 'string', description: 'The key --url accepts, sent in X-API-Key (default: ACTORKIT_EVAL_KEY)' },
  tolerance: {
    type: 'string',
    description: "How far (0 to 1) a case's pass rate may fall below evals/baseline.json before exit 1 (default 0)",
  },
  reporter: {
    type: 'string',
    description: 'json (evals/results.json) or junit (evals/junit.xml); comma-separated for both',
  },
  'update-baseline': { type: 'boolean', description: "Write this run's pass rates to evals/baseline.json" },
  filter: { type: 'string', description: 'Only the cases whose name contains this text' },
  'price-input': { type: 'string', description: 'US dollars per million input tokens, for a cost per case' },
  'price-output': { type: 'string', description: 'US dollars per million output tokens, for a cost per case' },
  ...sharedArgs,
} as const;

const MORE_HELP = `Cases are YAML files in evals/ (docs/evals.md): user turns, the tools expected (and not),
the reply expected (contains, regex, json_schema, a rubric graded by a model judge), budgets and a weight.
The actor runs in this process with the model its environment names (LLM_*; the offline model when
none is set), or at --url. Rubrics are graded by EVAL_JUDGE_BASE_URL / EVAL_JUDGE_MODEL /
EVAL_JUDGE_API_KEY, else by the actor's own LLM_BASE_URL / LLM_MODEL / LLM_API_KEY.

Exit codes: 0 every case at or above its baseline pass rate (1 without a baseline), 1 a case fell
by more than --tolerance, 2 cases could not run (model outage, refused key, bad case file).`;

/** `actorkit eval [dir]`: runs the actor's eval cases, prints a results table and fails on a regression. */
export default defineCommand({
  meta: verbMeta({
    name: 'eval',
    description:
      "Run an actor's eval cases (evals/*.yaml) against its model; exit 1 on a regression from evals/baseline.json",
    example: 'actorkit eval . --repeat 3 --reporter junit',
    moreHelp: async () => MORE_HELP,
  }),
  args,
  async run(context) {
    const { io } = startCommand('eval', context, args);
    const { CliError, toCliFailure } = await import('../cli-error.js');
    const { runEvals, evalResultsText } = await import('../eval/run-evals.js');
    const number = (name: string, value: string | undefined) => {
      if (value === undefined) return undefined;
      const parsed = Number(value);
      if (value.trim() === '' || !Number.isFinite(parsed))
        throw new CliError(
          'refused',
          'bad_usage',
          `--${name} must be a number, got '${value}' (see \`actorkit eval --help\`)`,
        );
      return parsed;
    };
    let result: Awaited<ReturnType<typeof runEvals>>;
    try {
      const reporters = (context.args.reporter ?? '').split(',').filter((name) => name !== '');
      const unknown = reporters.find((name) => name !== 'json' && name !== 'junit');
      if (unknown !== undefined)
        throw new CliError(
          'refused',
          'bad_usage',
          `--reporter must be json or junit, got '${unknown}' (see \`actorkit eval --help\`)`,
        );
      const priceInput = number('price-input', context.args['price-input']);
      const priceOutput = number('price-output', context.args['price-output']);
      result = await runEvals(context.args.dir, {
        repeat: number('repeat', context.args.repeat),
        concurrency: number('concurrency', context.args.concurrency),
        url: context.args.url,
        key: context.args.key,
        tolerance: number('tolerance', context.args.tolerance),
        reporters: reporters as ('json' | 'junit')[],
        updateBaseline: context.args['update-baseline'] === true,
        filter: context.args.filter,
        ...(priceInput !== undefined || priceOutput !== undefined
          ? { prices: { input: priceInput ?? 0, output: priceOutput ?? 0 } }
          : {}),
        io,
      });
    } catch (error) {
      result = toCliFailure(error);
    }
    if (context.args.json) printJson(io, result);
    else if (!('cases' in result)) printFailure(io, result);
    else {
      io.stdout.write(evalResultsText(result));
      for (const report of result.reports) io.stdout.write(`wrote ${report}\n`);
      if (result.baselineWritten) io.stdout.write('wrote the baseline evals/baseline.json\n');
      if (result.status === 'refused') io.stderr.write('error: some cases could not run (marked ERROR): exit 2\n');
      else if (result.status === 'failed') io.stderr.write('error: a case fell below its baseline pass rate: exit 1\n');
    }
    return result;
  },
});
