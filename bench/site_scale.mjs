// The catalog at scale: times `validate`, `build` and `build --check` on generated catalogs
// (bench/make_catalog.mjs) and reports the median wall time, the peak memory (GNU time's maximum
// resident set size) and the largest page written. Run by hand, never as a test:
//
//   node bench/site_scale.mjs [--recipes 10000] [--runs 3] [--keep]
//
// Two catalogs: RECIPES recipes over 500 (model, GPU type) pairs, and RECIPES recipes in one
// pair. OPENRECIPES_BINARY (default build/openrecipes) is what is measured. `validate` and `build`
// are timed cold (the result cache off: every recipe checked, the speed model fitted and every
// unmeasured pair searched) and warm (a cache in the scratch folder, filled by one build first:
// what every run after the first pays when no input changed), and warm after a comment was added
// to one recipe (what a contributor's edit costs: that recipe is checked again, nothing refitted).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { makeCatalog } from "./make_catalog.mjs";

const source = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const binary = path.resolve(process.env.OPENRECIPES_BINARY ?? path.join(source, "build/openrecipes"));

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const at = argv.indexOf(name);
  return at >= 0 ? Number(argv[at + 1]) : fallback;
};
const recipes = option("--recipes", 10000);
const runs = option("--runs", 3);
const keep = argv.includes("--keep");
if (!fs.existsSync("/usr/bin/time")) {
  throw new Error("site_scale: needs GNU time (/usr/bin/time; scripts/install-deps.sh --test)");
}

// One run of `openrecipes ARGS` in `root`: wall seconds and peak resident memory in MiB.
function measure(root, args, cache) {
  const report = path.join(root, ".time");
  execFileSync("/usr/bin/time", ["-o", report, "-f", "%e %M", binary, "--root", root, ...args],
               { cwd: root, stdio: ["ignore", "ignore", "inherit"],
                 env: { ...process.env, OPENRECIPES_CACHE_DIR: cache } });
  const [seconds, kib] = fs.readFileSync(report, "utf8").trim().split(/\s+/).map(Number);
  return { seconds, mib: kib / 1024 };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

// The largest file under `folder` ending in .html: [bytes, relative path].
function largestPage(folder) {
  let best = [0, ""];
  for (const entry of fs.readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".html")) continue;
    const full = path.join(entry.parentPath ?? entry.path, entry.name);
    const bytes = fs.statSync(full).size;
    if (bytes > best[0]) best = [bytes, path.relative(folder, full)];
  }
  return best;
}

// The first recipe file under `root`/recipes, for the edit row.
function firstRecipe(root) {
  const found = fs.readdirSync(path.join(root, "recipes"), { recursive: true })
    .filter((name) => name.endsWith(".yaml")).sort()[0];
  return path.join(root, "recipes", found);
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "openrecipes-site-scale-"));
console.log(`${binary}, ${os.cpus().length} cores, ${runs} runs each, medians`);
for (const pairs of [500, 1]) {
  const root = path.join(scratch, `pairs-${pairs}`);
  makeCatalog({ recipes, pairs, out: root });
  const rows = [];
  const cache = path.join(scratch, `cache-${pairs}`);
  measure(root, ["build"], cache);
  const edited = firstRecipe(root);
  let edits = 0;
  const editOne = () => fs.appendFileSync(edited, `# edit ${++edits}\n`);
  for (const [name, args, cached, before] of [["validate, cold", ["validate"], ""],
                                              ["validate, warm", ["validate"], cache],
                                              ["build, cold", ["build"], ""],
                                              ["build, warm", ["build"], cache],
                                              ["build, 1 edited", ["build"], cache, editOne],
                                              ["build --check", ["build", "--check"], cache]]) {
    const results = Array.from({ length: runs }, () => {
      if (before) before();
      return measure(root, args, cached);
    });
    rows.push({ command: name, seconds: median(results.map((r) => r.seconds)),
                peak_mib: Math.max(...results.map((r) => r.mib)) });
  }
  const [bytes, page] = largestPage(path.join(root, "site"));
  console.log(`\n${recipes} recipes over ${pairs} pair${pairs === 1 ? "" : "s"}:`);
  for (const row of rows) {
    console.log(`  ${row.command.padEnd(15)} ${row.seconds.toFixed(2).padStart(6)} s  ` +
                `${row.peak_mib.toFixed(0).padStart(5)} MiB peak`);
  }
  console.log(`  largest page   ${(bytes / 1048576).toFixed(2)} MiB (${page})`);
}
if (keep) console.log(`\nkept ${scratch}`);
else fs.rmSync(scratch, { recursive: true, force: true });
