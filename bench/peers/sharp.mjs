// sharp (libvips) for the images bench, run under Node 22 by bench/images.ts: reads the JPEG the bench
// generated (SHARP_INPUT), resizes it to SHARP_WIDTH wide WebP at SHARP_QUALITY SHARP_RUNS times after a
// warm-up, each from the encoded bytes in memory as the site's transform starts, and prints one JSON line:
// the milliseconds of each run, the output's size and libvips' thread count.
import fs from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const SHARP = "sharp"; // through a variable: the project's type check must not resolve it
const sharp = require(SHARP);

const input = fs.readFileSync(process.env.SHARP_INPUT);
const width = Number(process.env.SHARP_WIDTH);
const quality = Number(process.env.SHARP_QUALITY);
const once = () => sharp(input).resize({ width }).webp({ quality }).toBuffer({ resolveWithObject: true });
await once();
const samples = [];
let info;
for (let i = 0; i < Number(process.env.SHARP_RUNS); i++) {
  const started = performance.now();
  info = (await once()).info;
  samples.push(performance.now() - started);
}
process.stdout.write(
  JSON.stringify({
    samples,
    width: info.width,
    height: info.height,
    bytes: info.size,
    threads: sharp.concurrency(),
    version: sharp.versions,
  }) + "\n",
);
