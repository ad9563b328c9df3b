/**
 * Writes the README's table of environment variables from `src/environment/environment-variables.ts`
 * (between the environment-table markers). `npm run docs:env`; a test fails when the README differs.
 */
import { withEnvironmentTable } from '../src/environment/environment-table.js';
import { writeGeneratedDoc } from './write-generated-doc.js';

writeGeneratedDoc('README.md', 'the environment table', withEnvironmentTable);
