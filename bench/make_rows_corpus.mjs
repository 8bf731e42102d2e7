// A synthetic corpus shaped like allenai/tulu-3-sft-mixture, for bench/rows_build_speed.mjs:
// JSONL shards of {id, messages: [{role, content}], source}, the same bytes on every run for the
// same --mb and --seed. See bench/README.md ("Rows build speed").
//   node bench/make_rows_corpus.mjs OUT_DIR [--mb 300] [--seed 1] [--shards 4] [--words TOKENIZER_JSON]
// Writes OUT_DIR/train-0000K-of-0000N.jsonl and prints one JSON line of counts.
//
// Only arithmetic and V8's Math.log/exp/sqrt/cos (fdlibm ports, the same on every platform) are
// used, so the output depends on the seed and the word list alone. The word list is the whole
// lower-case words of the gpt-oss tokenizer.json (deps/npm, pinned by its sha256 in data/README.md).
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const GPTOSS_TOKENIZER = join(dirname(fileURLToPath(import.meta.url)), "..", "deps", "npm", "node_modules", "@lenml",
  "tokenizer-gptoss", "models", "tokenizer.json");

// Real words for the middle of the vocabulary: a byte-level BPE vocabulary's tokens that are a
// space and 3+ lower-case letters, in id order (merge order, roughly most frequent first).
function tokenizerWords(path, count) {
  const vocab = JSON.parse(readFileSync(path, "utf8")).model.vocab;
  return Object.entries(vocab)
    .filter(([token]) => /^\u0120[a-z]{3,}$/.test(token))
    .sort((a, b) => a[1] - b[1])
    .slice(0, count)
    .map(([token]) => token.slice(1));
}

// sfc32 (Chris Doty-Humphrey's Small Fast Chaotic PRNG): 32-bit integer arithmetic only.
function prng(seed) {
  let a = seed | 0, b = 0x9e3779b9 | 0, c = 0x243f6a88 | 0, d = 0xb7e15162 | 0;
  const next = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 16; i++) next();
  return next;
}

// Common English words take the top Zipf ranks, so frequent words tokenize as in real text.
const COMMON = `the of and to a in is that for it as with was on be by this are or not from at which an have you
can but all they their more one has will your we if there been also its than other these so some what when about into
only how would use may each such like most time any between then those do where over after because used should first
make through many well both very data system number example new could same while however two must way information
different value here just need using function code result answer question step first following given find total
let our each note since does because per simply three each problem set case state work part called based`.split(/\s+/);

// Pieces of made-up words: most of the ~250k word forms are 1-4 syllables of these, so they split
// into several tokens, like rare words do.
const ONSETS = ["", "", "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z", "br",
  "cr", "dr", "fl", "gr", "pl", "pr", "sh", "st", "str", "th", "tr", "ch", "sp", "sc", "qu", "bl", "cl", "gl", "sl",
  "sm", "sn", "sw", "tw", "wh"];
const NUCLEI = ["a", "e", "i", "o", "u", "a", "e", "i", "o", "ai", "ea", "ee", "ie", "oa", "ou", "y", "io", "au"];
const CODAS = ["", "", "", "n", "r", "s", "t", "l", "m", "nd", "nt", "st", "ng", "ck", "rt", "ct", "sh", "th", "x",
  "ll", "ss", "rd", "ld", "mp", "ns"];
const SUFFIXES = ["", "", "", "", "", "ing", "ed", "er", "ly", "tion", "ment", "ness", "able", "ize", "ous", "al", "ic", "s"];
const ACCENTS = { a: "áàâäã", e: "éèêë", i: "íîï", o: "óôöø", u: "úùûü", n: "ñ", c: "ç" };
const CJK_FIRST = 0x4e00; // CJK Unified Ideographs: the first 6,000, lower code points drawn more often
const CJK_COUNT = 6000;

// Real Tulu 3 sources (names only) with rough shares and what their conversations look like.
const SOURCES = [
  { name: "ai2-adapt-dev/personahub_math_v5_regen_149960", tag: "personahub_math", share: 0.2, kind: "math" },
  { name: "ai2-adapt-dev/evol_codealpaca_heval_decontaminated", tag: "evol_codealpaca", share: 0.12, kind: "code" },
  { name: "ai2-adapt-dev/personahub_code_v2_34999", tag: "personahub_code", share: 0.04, kind: "code" },
  { name: "ai2-adapt-dev/tulu_v3.9_wildchat_100k", tag: "wildchat", share: 0.12, kind: "chat" },
  { name: "ai2-adapt-dev/flan_v2_converted", tag: "flan_v2", share: 0.1, kind: "short" },
  { name: "ai2-adapt-dev/numinamath_tir_math_decontaminated", tag: "numinamath", share: 0.1, kind: "math" },
  { name: "ai2-adapt-dev/tulu_v3.9_open_math_2_gsm8k_50k", tag: "gsm8k", share: 0.06, kind: "math" },
  { name: "ai2-adapt-dev/tulu_v3.9_synthetic_finalresp_wildguardmixtrain_decontaminated_50k", tag: "wildguard", share: 0.08, kind: "chat" },
  { name: "ai2-adapt-dev/oasst1_converted", tag: "oasst1", share: 0.03, kind: "chat" },
  { name: "ai2-adapt-dev/no_robots_converted", tag: "no_robots", share: 0.02, kind: "chat" },
  { name: "ai2-adapt-dev/tulu_v3.9_aya_100k", tag: "aya", share: 0.04, kind: "multilingual" },
  { name: "ai2-adapt-dev/coconot_converted", tag: "coconot", share: 0.02, kind: "short" },
  { name: "ai2-adapt-dev/tulu_v3.9_table_gpt_5k", tag: "table_gpt", share: 0.07, kind: "chat" },
];

export function makeCorpus({ dir, mb = 300, seed = 1, shards = 4, words = GPTOSS_TOKENIZER }) {
  const random = prng(seed);
  const below = (n) => Math.floor(random() * n);
  const chance = (p) => random() < p;
  const pick = (list) => list[below(list.length)];
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  // Heavy-tailed lengths: log-normal around `median` characters, clipped to [min, 30,000].
  const lengthNear = (median, sigma, min = 20) => Math.min(30_000, Math.max(min, Math.round(median * Math.exp(sigma * normal()))));
  const capitalize = (word) => word.charAt(0).toUpperCase() + word.slice(1);
  const accent = (word) => word.replace(/[aeiounc]/g, (c) => (chance(0.35) ? pick(ACCENTS[c]) : c));
  const cjk = (n) => {
    let s = "";
    for (let i = 0; i < n; i++) s += String.fromCharCode(CJK_FIRST + Math.floor(CJK_COUNT * random() * random()));
    return s;
  };

  // The vocabulary, ~250k forms: common words, 40k real words, then 210k made-up forms (some
  // capitalised, upper-case, with digits, hyphenated, accented or CJK) in random order. Words are
  // drawn with P(rank r) proportional to (r + 1)^-1.07 (Zipf's law): about 54% of running words are
  // common ones, 37% real words and 9% made-up ones, a long tail of forms seen once or twice.
  const real = tokenizerWords(words, 40_000).filter((w) => !COMMON.includes(w));
  const known = new Set([...COMMON, ...real]);
  const made = new Set();
  while (made.size < 210_000) {
    const syllables = 1 + (chance(0.45) ? 0 : chance(0.75) ? 1 : chance(0.8) ? 2 : 3);
    let word = "";
    for (let s = 0; s < syllables; s++) word += pick(ONSETS) + pick(NUCLEI) + pick(CODAS);
    word += pick(SUFFIXES);
    const r = random();
    if (r < 0.06) word = capitalize(word);
    else if (r < 0.075) word = word.slice(0, 2 + below(3)).toUpperCase();
    else if (r < 0.09) word += String(below(1000));
    else if (r < 0.1) word += "-" + pick(ONSETS) + pick(NUCLEI) + pick(CODAS);
    else if (r < 0.115) word = accent(word);
    else if (r < 0.125) word = cjk(2 + below(3));
    if (!known.has(word)) made.add(word);
  }
  const rare = [...made];
  for (let i = rare.length - 1; i > 0; i--) {
    const j = below(i + 1);
    [rare[i], rare[j]] = [rare[j], rare[i]];
  }
  const vocabulary = [...new Set(COMMON), ...real, ...rare];
  const cumulative = new Float64Array(vocabulary.length);
  let total = 0;
  for (let r = 0; r < vocabulary.length; r++) cumulative[r] = total += Math.exp(-1.07 * Math.log(r + 1));
  const word = () => {
    const x = random() * total;
    let lo = 0, hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return vocabulary[lo];
  };
  const asciiWord = () => {
    for (;;) {
      const w = word();
      if (/^[a-z]+$/.test(w)) return w;
    }
  };
  const identifier = () => (chance(0.5) ? asciiWord() + "_" + asciiWord() : asciiWord() + capitalize(asciiWord()));
  const number = () => {
    const r = random();
    if (r < 0.4) return String(below(100));
    if (r < 0.6) return String(1900 + below(130));
    if (r < 0.8) return `${below(1000)}.${below(100)}`;
    if (r < 0.9) return `${below(100)}%`;
    return `${1 + below(999)},${String(below(1000)).padStart(3, "0")}`;
  };

  // Text blocks. `mode` is "latin", "accented" (multilingual Latin) or "cjk".
  const sentence = (mode, end) => {
    if (mode === "cjk") {
      let s = "";
      for (let i = 2 + below(8); i > 0; i--) s += cjk(2 + below(6)) + (chance(0.3) ? "，" : "");
      return s + (chance(0.15) ? number() : "") + (end === "?" ? "？" : "。");
    }
    let s = "";
    for (let i = 0, n = 4 + below(20); i < n; i++) {
      let w = chance(0.04) ? number() : word();
      if (mode === "accented" && chance(0.4)) w = accent(w);
      if (i === 0) w = capitalize(w);
      s += (i ? " " : "") + w + (i + 1 < n && chance(0.07) ? "," : "");
    }
    return s + end;
  };
  const paragraph = (mode, question) => {
    const parts = [];
    for (let i = 1 + below(5); i > 0; i--) parts.push(sentence(mode, i === 1 && question ? "?" : chance(0.05) ? "!" : "."));
    return parts.join(mode === "cjk" ? "" : " ");
  };
  const list = (mode) => {
    const numbered = chance(0.5);
    const items = [];
    for (let i = 1, n = 2 + below(6); i <= n; i++) {
      const bold = chance(0.3) ? `**${capitalize(word())} ${word()}**: ` : "";
      items.push(`${numbered ? `${i}.` : "-"} ${bold}${sentence(mode, ".")}`);
    }
    return items.join("\n");
  };
  const CODE_LINES = [
    () => `def ${identifier()}(${asciiWord()}, ${asciiWord()}):`,
    () => `${identifier()} = ${identifier()}(${asciiWord()}, ${number()})`,
    () => `return ${asciiWord()} + ${below(100)}`,
    () => `for ${asciiWord()} in range(${below(1000)}):`,
    () => `if ${asciiWord()} == "${word()}":`,
    () => `# ${sentence("latin", "")}`,
    () => `const ${identifier()} = await ${asciiWord()}.${identifier()}(${below(100)});`,
    () => `${asciiWord()}[${below(64)}] = ${asciiWord()} * ${below(10)};`,
    () => `print(f"${word()} {${asciiWord()}}")`,
    () => `SELECT ${asciiWord()}, COUNT(*) FROM ${identifier()} WHERE ${asciiWord()} > ${below(1000)};`,
  ];
  const code = () => {
    const lines = [];
    for (let i = 3 + below(20); i > 0; i--) lines.push(" ".repeat(4 * below(3)) + pick(CODE_LINES)());
    return "```" + pick(["python", "javascript", "cpp", "sql", "bash", ""]) + "\n" + lines.join("\n") + "\n```";
  };
  const math = () => `$$ ${asciiWord()} = ${number()} \\times ${number()} + \\frac{${below(100)}}{${1 + below(99)}} $$`;

  // One message of about `length` characters, blocks chosen by role and the source's kind.
  const content = (role, kind, mode, length) => {
    const blocks = [];
    let size = 0;
    while (size < length) {
      const r = random();
      let block;
      if (role === "user" || role === "system") block = kind === "code" && r < 0.15 ? code() : paragraph(mode, role === "user" && r > 0.6);
      else if (kind === "code" && r < 0.35) block = code();
      else if (kind === "math" && r < 0.2) block = math();
      else if (r < 0.2) block = list(mode);
      else if (r < 0.25) block = `## ${capitalize(word())} ${word()}`;
      else if (r < 0.29) block = code();
      else block = paragraph(mode, false);
      blocks.push(block);
      size += block.length + 2;
    }
    return blocks.join("\n\n");
  };

  const conversation = (source) => {
    const kind = source.kind;
    const mode = kind !== "multilingual" ? "latin" : chance(0.5) ? "cjk" : "accented";
    const long = kind === "short" ? 0.35 : 1;
    const messages = [];
    if (chance(0.06)) messages.push({ role: "system", content: content("system", kind, mode, lengthNear(160, 0.8)) });
    const multi = kind === "chat" ? 0.3 : 0.04;
    const turns = chance(multi) ? 2 + below(3) : 1; // 1 turn: user + assistant; else 4-8 messages
    for (let t = 0; t < turns; t++) {
      const scale = turns > 1 ? 0.6 : 1;
      messages.push({ role: "user", content: content("user", kind, mode, lengthNear(320 * long * scale, 1.0)) });
      const reply = chance(0.03) ? Math.round(6_000 * Math.exp(1.6 * random())) : lengthNear(1_000 * long * scale, 0.9);
      messages.push({ role: "assistant", content: content("assistant", kind, mode, Math.min(30_000, reply)) });
    }
    return messages;
  };

  // Shards in order, each about mb/shards of message text; conversations numbered per source.
  mkdirSync(dir, { recursive: true });
  const cumulativeShare = [];
  let share = 0;
  for (const source of SOURCES) cumulativeShare.push((share += source.share));
  const counts = new Map();
  const targetBytes = mb * 1e6;
  const files = [];
  let conversations = 0, textBytes = 0, fileBytes = 0;
  for (let k = 0; k < shards; k++) {
    const path = join(dir, `train-${String(k).padStart(5, "0")}-of-${String(shards).padStart(5, "0")}.jsonl`);
    const fd = openSync(path, "w");
    let pending = [], pendingBytes = 0;
    const flush = () => {
      const bytes = Buffer.from(pending.join(""), "utf8");
      writeSync(fd, bytes);
      fileBytes += bytes.length;
      pending = [];
      pendingBytes = 0;
    };
    while (textBytes < (targetBytes * (k + 1)) / shards) {
      const x = random() * share;
      const source = SOURCES[cumulativeShare.findIndex((c) => x < c)];
      const n = (counts.get(source.tag) ?? 0) + 1;
      counts.set(source.tag, n);
      const messages = conversation(source);
      for (const m of messages) textBytes += Buffer.byteLength(m.content, "utf8");
      const line = JSON.stringify({ id: `${source.tag}_${n}`, messages, source: source.name }) + "\n";
      pending.push(line);
      pendingBytes += line.length;
      conversations++;
      if (pendingBytes > 8 << 20) flush();
    }
    flush();
    closeSync(fd);
    files.push(path);
  }
  return { files, conversations, text_bytes: textBytes, jsonl_bytes: fileBytes, vocabulary: vocabulary.length };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
  const dir = args[0];
  if (!dir || dir.startsWith("--")) {
    console.error("usage: node bench/make_rows_corpus.mjs OUT_DIR [--mb 300] [--seed 1] [--shards 4]");
    process.exit(2);
  }
  const stats = makeCorpus({ dir, mb: Number(option("--mb", "300")), seed: Number(option("--seed", "1")),
    shards: Number(option("--shards", "4")), words: option("--words", GPTOSS_TOKENIZER) });
  console.log(JSON.stringify(stats));
}
