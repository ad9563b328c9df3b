// `node --import ./report-new-space.mjs entry.js`: on SIGUSR2 the process writes the bytes its V8
// new space has committed (both semi-spaces) to the file named by NEW_SPACE_FILE. Lets a test
// read the heap sizing of a running actor from outside.
import { writeFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

const file = process.env.NEW_SPACE_FILE;
if (!file) throw new Error('report-new-space.mjs needs NEW_SPACE_FILE');
process.on('SIGUSR2', () => {
  const newSpace = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  writeFileSync(file, String(newSpace?.space_size ?? 0));
});
