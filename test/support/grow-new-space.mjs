// `node --import ./grow-new-space.mjs entry.js`: before the entry loads, allocates and drops
// 3 million small objects in batches that survive a scavenge or two, which grows V8's new
// space to its own limit (32 MiB or more). Stands for a start-up that loads more than the
// example actor does.
let kept = [];
for (let index = 0; index < 3_000_000; index += 1) {
  kept.push({ index });
  if (kept.length > 200_000) kept = [];
}
