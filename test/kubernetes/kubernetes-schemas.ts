import { join } from 'node:path';
import type { Model } from '@kubernetes-models/base';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import ts from 'typescript';
import { REPOSITORY_ROOT } from '../support/built-package.js';

/**
 * The Kubernetes release whose OpenAPI schemas `kubernetes-models` (pinned in this folder's
 * package.json, installed by the root `pretest`) was generated from: its 5.1 line carries v1.36.
 * It declares Node 22 in `engines`, so it is installed here with Node 24 rather than in the root
 * project, whose install must not warn on Node 20; the validators run on Node 20, as the tests show.
 */
export const KUBERNETES_SCHEMA_VERSION = '1.36.0';

type ModelClass = new (data: never) => Model<unknown>;

/** Each kind the manifests may hold: its model class (the schema validator) and its interface (for the strict check). */
const KINDS: Readonly<Record<string, { readonly model: ModelClass; readonly module: string; readonly type: string }>> =
  {
    'apps/v1/Deployment': {
      model: Deployment as ModelClass,
      module: 'kubernetes-models/apps/v1/Deployment',
      type: 'IDeployment',
    },
    'v1/Service': { model: Service as ModelClass, module: 'kubernetes-models/v1/Service', type: 'IService' },
    'v1/PersistentVolumeClaim': {
      model: PersistentVolumeClaim as ModelClass,
      module: 'kubernetes-models/v1/PersistentVolumeClaim',
      type: 'IPersistentVolumeClaim',
    },
    'v1/Secret': { model: Secret as ModelClass, module: 'kubernetes-models/v1/Secret', type: 'ISecret' },
    'v1/ConfigMap': { model: ConfigMap as ModelClass, module: 'kubernetes-models/v1/ConfigMap', type: 'IConfigMap' },
    'autoscaling/v2/HorizontalPodAutoscaler': {
      model: HorizontalPodAutoscaler as ModelClass,
      module: 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler',
      type: 'IHorizontalPodAutoscaler',
    },
    'policy/v1/PodDisruptionBudget': {
      model: PodDisruptionBudget as ModelClass,
      module: 'kubernetes-models/policy/v1/PodDisruptionBudget',
      type: 'IPodDisruptionBudget',
    },
  };

interface Manifest {
  readonly apiVersion?: unknown;
  readonly kind?: unknown;
}

function kindOf(object: Manifest): string {
  return `${String(object.apiVersion)}/${String(object.kind)}`;
}

/**
 * The schema problems of one object: its kind's validator from `kubernetes-models`, compiled from
 * the OpenAPI schema of Kubernetes {@link KUBERNETES_SCHEMA_VERSION} (types, required fields, enums,
 * formats), each as `/pointer must …`; an unknown kind is one problem.
 * @param object a parsed manifest object
 */
export function schemaProblems(object: Manifest): string[] {
  const kind = KINDS[kindOf(object)];
  if (kind === undefined) return [`no schema for ${kindOf(object)}`];
  try {
    new kind.model(object as never).validate();
    return [];
  } catch (error) {
    return String((error as Error).message)
      .split(/,\s*(?=data)/)
      .map((line) => line.replace(/^data/, ''));
  }
}

/**
 * The fields each object has that its kind does not define — what `kubectl apply` refuses under
 * strict field validation, and what Kubernetes' OpenAPI schemas (which do not forbid unknown
 * fields) let through. Each object is type-checked against its kind's interface in
 * `kubernetes-models`, generated from the same schemas, so an object literal with a field its
 * type lacks fails (TypeScript's excess property check, at every depth). A kind without a schema
 * is left to {@link schemaProblems}.
 * @param objects parsed manifest objects
 * @returns one list of problems per object
 */
export function strictFieldProblems(objects: readonly Manifest[]): string[][] {
  const fileName = join(REPOSITORY_ROOT, 'test', 'kubernetes', '.kubernetes-strict-check.mts');
  const lines: string[] = [];
  const owners: number[] = [];
  const emit = (text: string, owner: number) => {
    for (const line of text.split('\n')) {
      lines.push(line);
      owners.push(owner);
    }
  };
  const problems: string[][] = objects.map(() => []);
  objects.forEach((object, index) => {
    const kind = KINDS[kindOf(object)];
    if (kind !== undefined)
      emit(
        `import type { ${kind.type} as T${index} } from '${kind.module}';\nexport const object${index}: T${index} = ${JSON.stringify(object, null, 1)};`,
        index,
      );
  });
  const source = lines.join('\n');
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) =>
    name === fileName ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === fileName || fileExists(name);
  const program = ts.createProgram([fileName], options, host);
  const checked = program.getSourceFile(fileName);
  for (const diagnostic of [...program.getSyntacticDiagnostics(checked), ...program.getSemanticDiagnostics(checked)]) {
    const line =
      diagnostic.start === undefined || checked === undefined
        ? 0
        : checked.getLineAndCharacterOfPosition(diagnostic.start).line;
    problems[owners[line] ?? 0]?.push(ts.flattenDiagnosticMessageText(diagnostic.messageText, ' '));
  }
  return problems;
}

/**
 * Every problem of each object: its schema problems, then its fields the kind does not define.
 * @param objects parsed manifest objects
 * @returns one list per object, empty when it is valid
 */
export function kubernetesProblems(objects: readonly Manifest[]): string[][] {
  const strict = strictFieldProblems(objects);
  return objects.map((object, index) => [...schemaProblems(object), ...(strict[index] ?? [])]);
}
