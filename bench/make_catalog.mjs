// Writes a catalog of many valid recipes, for bench/site_scale.mjs: a copy of this repository's
// catalog files (schemas, rules, templates, gpus.yaml, models, data/) whose models.yaml gains
// PAIRS - 1 copies of gpt-oss-20b under other names (same config.json, so N is the same), and
// whose recipes/ holds RECIPES copies of recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml spread
// evenly over the PAIRS (model, H200) pairs. Each copy differs only in its model field and file
// name, so every one validates, as the original does.
//
//   node bench/make_catalog.mjs --recipes 10000 --pairs 500 --out DIR
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const source = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const kBaseRecipe = "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml";
const kBaseModel = "gpt-oss-20b";
const kCopied = ["authors.yaml", "gpus.yaml", "site.yaml", "schema", "rules", "templates", "models",
                 "patches", "data"];

function parseArguments(argv) {
  const options = { recipes: 10000, pairs: 500, out: "" };
  for (let i = 0; i < argv.length; i += 2) {
    const [name, value] = [argv[i], argv[i + 1]];
    if (name === "--recipes") options.recipes = Number(value);
    else if (name === "--pairs") options.pairs = Number(value);
    else if (name === "--out") options.out = value;
    else throw new Error(`make_catalog: unknown option ${name}`);
  }
  if (!options.out) throw new Error("make_catalog: --out DIR is required");
  if (!(options.recipes >= 1 && options.pairs >= 1 && options.pairs <= options.recipes)) {
    throw new Error("make_catalog: need 1 <= --pairs <= --recipes");
  }
  return options;
}

// The gpt-oss-20b entry of models.yaml: from its "- name:" line to the next entry.
function baseModelEntry(modelsYaml) {
  const start = modelsYaml.indexOf(`  - name: ${kBaseModel}\n`);
  const next = modelsYaml.indexOf("\n  - name: ", start + 1);
  if (start < 0 || next < 0) throw new Error(`make_catalog: no ${kBaseModel} entry in models.yaml`);
  return modelsYaml.slice(start, next + 1);
}

export function makeCatalog({ recipes, pairs, out }) {
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  for (const name of kCopied) {
    fs.cpSync(path.join(source, name), path.join(out, name), { recursive: true });
  }
  let modelsYaml = fs.readFileSync(path.join(source, "models.yaml"), "utf8");
  const entry = baseModelEntry(modelsYaml);
  const slugs = [kBaseModel];
  for (let p = 1; p < pairs; ++p) {
    const slug = `${kBaseModel}-copy${String(p).padStart(4, "0")}`;
    slugs.push(slug);
    modelsYaml += entry.replace(`name: ${kBaseModel}\n`, `name: ${slug}\n`)
                       .replace(`slug: ${kBaseModel}\n`, `slug: ${slug}\n`);
    fs.cpSync(path.join(source, "models", kBaseModel), path.join(out, "models", slug),
              { recursive: true });
  }
  fs.writeFileSync(path.join(out, "models.yaml"), modelsYaml);
  const base = fs.readFileSync(path.join(source, kBaseRecipe), "utf8");
  for (let i = 0; i < recipes; ++i) {
    const slug = slugs[i % pairs];
    const stem = `attune-tp1-pp2-ep4-copy${String(i).padStart(5, "0")}`;
    const relative = `recipes/${slug}/h200/${stem}.yaml`;
    const text = base.replace(`# ${kBaseRecipe}\n`, `# ${relative}\n`)
                     .replace(`\nmodel: ${kBaseModel}\n`, `\nmodel: ${slug}\n`);
    fs.mkdirSync(path.join(out, "recipes", slug, "h200"), { recursive: true });
    fs.writeFileSync(path.join(out, relative), text);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  makeCatalog(parseArguments(process.argv.slice(2)));
}
