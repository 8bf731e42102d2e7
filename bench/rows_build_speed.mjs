// Wall time and peak memory of `openrecipes rows build` (6,400 rows of 8,192 tokens, gpt-oss) on a
// synthetic Tulu-3-shaped corpus, and of `rows verify` on its output: issue 6's goal is a build
// under 60 s with peak RSS under 4 GB on 2 cores, and a verify under 2 s. See bench/README.md.
//   node bench/rows_build_speed.mjs [--mb 300] [--runs 3] [--rows 6400] [--parquet-only]
//                                   [--no-stages] [--cpus 0,1] [--keep]
// Environment: OPENRECIPES_BINARY (default build/openrecipes), OPENRECIPES_JSONL_TO_PARQUET
// (default: jsonl_to_parquet beside the binary, built from bench/jsonl_to_parquet.cc).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, closeSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync,
  writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { makeCorpus } from "./make_rows_corpus.mjs";

const source = resolve(fileURLToPath(new URL("..", import.meta.url)));
const binary = resolve(process.env.OPENRECIPES_BINARY ?? join(source, "build", "openrecipes"));
const converter = resolve(process.env.OPENRECIPES_JSONL_TO_PARQUET ?? join(dirname(binary), "jsonl_to_parquet"));
const tokenizer = join(source, "deps", "npm", "node_modules", "@lenml", "tokenizer-gptoss", "models", "tokenizer.json");
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const mb = Number(option("--mb", "300"));
const runs = Number(option("--runs", "3"));
const rows = option("--rows", "6400"); // fewer for a quick try on a small corpus
const cpus = option("--cpus", null); // e.g. 0,1: a 2-core machine on a bigger one
const formats = args.includes("--parquet-only") ? ["parquet"] : ["parquet", "jsonl"];
const goal = { build_s: 60, build_rss_mb: 4000, verify_s: 2 };

for (const [what, path] of [["openrecipes", binary], ["jsonl_to_parquet", converter], ["/usr/bin/time", "/usr/bin/time"], ["the gpt-oss tokenizer.json", tokenizer]]) {
  if (!existsSync(path)) {
    console.error(`${path}: not found (${what}). Build with cmake --build build -j2; ` +
      "install GNU time with apt-get install time; the tokenizer comes from scripts/install-deps.sh");
    process.exit(1);
  }
}

const loadAverage = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const seconds = (start) => Number(process.hrtime.bigint() - start) / 1e9;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
// SHA-256 of the files one after another, read in pieces (a 3,000 MB corpus does not fit a Buffer).
const sha256 = (paths) => {
  const hash = createHash("sha256");
  const buffer = Buffer.alloc(16 << 20);
  for (const path of paths) {
    const fd = openSync(path, "r");
    for (let n; (n = readSync(fd, buffer, 0, buffer.length, null)) > 0;) hash.update(buffer.subarray(0, n));
    closeSync(fd);
  }
  return hash.digest("hex");
};

// The corpus, cached in the temp folder under a key of the generator's source, the converter and
// the size, so a second run (or a second script) reuses it. manifest.json is written last.
function corpus() {
  const generator = readFileSync(new URL("./make_rows_corpus.mjs", import.meta.url));
  const key = createHash("sha256").update(generator).update(readFileSync(new URL("./jsonl_to_parquet.cc", import.meta.url)))
    .update(`${mb}`).digest("hex").slice(0, 12);
  const dir = join(tmpdir(), `openrecipes-rows-corpus-${mb}mb-${key}`);
  const manifestPath = join(dir, "manifest.json");
  if (existsSync(manifestPath)) return { dir, ...JSON.parse(readFileSync(manifestPath, "utf8")) };
  rmSync(dir, { recursive: true, force: true });
  console.error(`generating ${mb} MB of conversations in ${dir} ...`);
  let start = process.hrtime.bigint();
  const made = makeCorpus({ dir: join(dir, "jsonl"), mb, seed: 1, shards: 4 });
  const generate_s = seconds(start);
  mkdirSync(join(dir, "parquet"));
  start = process.hrtime.bigint();
  const parquet = made.files.map((file) => {
    const out = join(dir, "parquet", file.split("/").pop().replace(/\.jsonl$/, ".parquet"));
    const result = spawnSync(converter, [file, out], { encoding: "utf8" });
    if (result.status !== 0) throw new Error(`${converter} ${file}: ${result.stderr}`);
    return out;
  });
  const manifest = {
    conversations: made.conversations, text_bytes: made.text_bytes, vocabulary: made.vocabulary, generate_s,
    convert_s: seconds(start), jsonl: made.files, jsonl_bytes: made.jsonl_bytes, jsonl_sha256: sha256(made.files),
    parquet, parquet_bytes: parquet.reduce((sum, path) => sum + statSync(path).size, 0), parquet_sha256: sha256(parquet),
  };
  writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
  return { dir, ...manifest };
}

// Runs `command` under GNU time (and taskset with --cpus); returns wall s, CPU s, peak RSS MB
// and standard output. Throws when the command fails.
function measured(command, out) {
  const timeFile = `${out}.time`;
  const pinned = cpus ? ["taskset", "-c", cpus, ...command] : command;
  const start = process.hrtime.bigint();
  const result = spawnSync("/usr/bin/time", ["-f", "%U %S %M", "-o", timeFile, ...pinned], { encoding: "utf8", maxBuffer: 64 << 20 });
  const wall_s = seconds(start);
  const [user, system, rssKb] = readFileSync(timeFile, "utf8").trim().split("\n").pop().split(" ").map(Number);
  const measures = { wall_s, cpu_s: user + system, rss_mb: (rssKb * 1024) / 1e6 };
  if (result.status !== 0) {
    const why = readFileSync(timeFile, "utf8").trim(); // GNU time notes a signal or exit status here
    throw new Error(`${command.slice(0, 3).join(" ")} ... exited with ${result.status}: ${result.stderr.trim()} ${why}`);
  }
  return { ...measures, stdout: result.stdout };
}

const buildArgs = (inputs, out) => [measuredBinary, "rows", "build", "--tokenizer", tokenizer, "--loss-mask", "gpt_oss", "--rows", rows,
  "--row-tokens", "8192", "--seed", "42", "--name", "bench-rows-build-speed", ...(cpus ? ["--threads", String(cpus.split(",").length)] : []),
  "--format", "json", ...inputs, "-o", out];

// One build on a pseudo-terminal (script(1)), so the build shows its progress line; the times it
// prints at each stage split the wall time: start-up, scanning + reading, packing, writing.
function stages(inputs, out) {
  const shell = buildArgs(inputs, out).map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ") + " >/dev/null";
  const start = process.hrtime.bigint();
  const result = spawnSync("script", ["-q", "-e", "-c", shell, "/dev/null"], { encoding: "utf8", maxBuffer: 64 << 20 });
  const wall_s = seconds(start);
  if (result.status !== 0) throw new Error(`rows build on a terminal exited with ${result.status}: ${result.stdout}`);
  const first = {};
  for (const [, at, stage] of result.stdout.matchAll(/\s([\d.]+) s {2}(\w+):/g)) first[stage] ??= Number(at);
  return { wall_s, ...first };
}

const c = corpus();
const fmt1 = (x) => x.toFixed(1), fmt2 = (x) => x.toFixed(2);
console.log(`corpus: ${c.dir}\n  ${c.conversations.toLocaleString("en-US")} conversations, ${fmt1(c.text_bytes / 1e6)} MB of message text, ` +
  `${c.vocabulary.toLocaleString("en-US")} word forms; JSONL ${fmt1(c.jsonl_bytes / 1e6)} MB (sha256 ${c.jsonl_sha256.slice(0, 16)}), ` +
  `Parquet ${fmt1(c.parquet_bytes / 1e6)} MB in ${c.parquet.length} files (sha256 ${c.parquet_sha256.slice(0, 16)}); ` +
  `made in ${fmt1(c.generate_s)} s + ${fmt1(c.convert_s)} s`);
console.log(`machine: ${spawnSync("nproc", { encoding: "utf8" }).stdout.trim()} cores, ` +
  `${(readFileSync("/proc/cpuinfo", "utf8").match(/model name\s*:\s*(.*)/) ?? [, "?"])[1]}${cpus ? `; pinned to CPUs ${cpus}` : ""}; ` +
  `load average ${loadAverage()} before (other work on the machine skews the times)`);

// Every run measures a copy of the binary taken now, so a rebuild meanwhile cannot change it.
const work = mkdtempSync(join(tmpdir(), "openrecipes-rows-bench-"));
const measuredBinary = join(work, "openrecipes");
copyFileSync(binary, measuredBinary);
chmodSync(measuredBinary, 0o755);
const table = []; // one row per measured figure: [label, values per run]
const add = (label, values, digits) => table.push([label, values.map((v) => v.toFixed(digits)), median(values).toFixed(digits)]);
const failures = [];
try {
  const results = Object.fromEntries(formats.map((f) => [f, []]));
  const verifies = [];
  for (let run = 1; run <= runs; run++) {
    for (const format of formats) {
      const out = join(work, `rows-${format}-${run}.parquet`);
      const build = measured(buildArgs(format === "parquet" ? c.parquet : c.jsonl, out), out);
      build.json = JSON.parse(build.stdout);
      results[format].push(build);
      console.error(`run ${run}: ${format} build ${fmt1(build.wall_s)} s, ${fmt1(build.rss_mb)} MB`);
      if (format !== "parquet") continue;
      const verify = measured([measuredBinary, "rows", "verify", "--format", "json", out], `${out}.verify`);
      const report = JSON.parse(verify.stdout);
      if (report.problems.length) failures.push(`run ${run}: rows verify found problems: ${JSON.stringify(report.problems)}`);
      if (report.rows_sha256 !== build.json.rows_sha256) failures.push(`run ${run}: verify's rows_sha256 ${report.rows_sha256} != build's ${build.json.rows_sha256}`);
      verifies.push(verify);
      console.error(`run ${run}: verify ${fmt2(verify.wall_s)} s, ${fmt1(verify.rss_mb)} MB`);
    }
    for (const format of formats) rmSync(join(work, `rows-${format}-${run}.parquet`), { force: true });
  }
  const parquet = results.parquet;
  add("build wall, s (Parquet)", parquet.map((r) => r.wall_s), 1);
  add("build CPU (user + sys), s", parquet.map((r) => r.cpu_s), 1);
  add("build peak RSS, MB", parquet.map((r) => r.rss_mb), 0);
  add("verify wall, s", verifies.map((r) => r.wall_s), 2);
  add("verify peak RSS, MB", verifies.map((r) => r.rss_mb), 0);
  if (results.jsonl) {
    add("build wall, s (JSONL)", results.jsonl.map((r) => r.wall_s), 1);
    add("build peak RSS, MB (JSONL)", results.jsonl.map((r) => r.rss_mb), 0);
  }

  // Determinism: one rows_sha256 (and one file) across runs and input formats.
  const all = formats.flatMap((f) => results[f].map((r) => r.json));
  const hashes = new Set(all.map((j) => j.rows_sha256));
  if (hashes.size !== 1) failures.push(`rows_sha256 differs between builds: ${[...hashes].join(", ")}`);
  const files = new Set(all.map((j) => j.build.parquet_sha256));
  const j = parquet[0].json;
  console.log(`rows: ${j.build.rows} x ${j.build.row_tokens} tokens from ${j.conversations_used.toLocaleString("en-US")} of ` +
    `${j.conversations_available.toLocaleString("en-US")} conversations (${j.skipped_rows} skipped rows), supervised ratio ` +
    `${j.build.supervised_token_ratio.toFixed(3)}, ${fmt1(j.build.parquet_bytes / 1e6)} MB file`);
  console.log(`rows_sha256 ${hashes.size === 1 ? "identical in all" : "DIFFERS between the"} ${all.length} builds (${[...hashes][0]}); ` +
    `parquet_sha256 ${files.size === 1 ? "identical" : `differs (${files.size} values)`}; verify's rows_sha256 ` +
    `${failures.some((f) => f.includes("verify")) ? "DIFFERS" : "matches"}`);

  if (!args.includes("--no-stages")) {
    const s = stages(c.parquet, join(work, "rows-stages.parquet"));
    console.log(`stages (one more build, on a pseudo-terminal): start-up ${fmt1(s.scanning)} s, scanning + reading + first chunk ` +
      `${fmt1(s.packing - s.scanning)} s, packing ${fmt1(s.writing - s.packing)} s, writing ${fmt1(s.wall_s - s.writing)} s ` +
      `(total ${fmt1(s.wall_s)} s)`);
  }

  const header = ["", ...Array.from({ length: runs }, (_, i) => `run ${i + 1}`), "median"];
  const lines = [header, ...table.map(([label, values, m]) => [label, ...values, m])];
  const widths = header.map((_, i) => Math.max(...lines.map((r) => r[i].length)));
  for (const r of lines) console.log(r.map((cell, i) => (i ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join("  "));
  console.log(`load average ${loadAverage()} after`);
  const verdict = (ok) => (ok ? "met" : "MISSED");
  const buildS = median(parquet.map((r) => r.wall_s)), rss = Math.max(...parquet.map((r) => r.rss_mb)), verifyS = median(verifies.map((r) => r.wall_s));
  console.log(`goal: build under ${goal.build_s} s: ${verdict(buildS < goal.build_s)} (median ${fmt1(buildS)} s); ` +
    `peak RSS under ${goal.build_rss_mb / 1000} GB: ${verdict(rss < goal.build_rss_mb)} (max ${fmt1(rss)} MB); ` +
    `verify under ${goal.verify_s} s: ${verdict(verifyS < goal.verify_s)} (median ${fmt2(verifyS)} s)`);
} finally {
  if (args.includes("--keep")) console.error(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
if (failures.length) {
  for (const failure of failures) console.error(`FAILED: ${failure}`);
  process.exit(1);
}
