// Browser tests of the built site: `openrecipes serve` in front, Debian's headless Chromium
// driven by playwright-core. Run by ctest (see tests/CMakeLists.txt) with
// OPENRECIPES_BINARY, OPENRECIPES_SOURCE_DIR and OPENRECIPES_ARTIFACTS set.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const binary = process.env.OPENRECIPES_BINARY;
const source = process.env.OPENRECIPES_SOURCE_DIR;
const artifacts = process.env.OPENRECIPES_ARTIFACTS ?? join(tmpdir(), "openrecipes-artifacts");
assert.ok(binary && source, "OPENRECIPES_BINARY and OPENRECIPES_SOURCE_DIR must be set");
mkdirSync(artifacts, { recursive: true });

const servers = [];
const temporaries = [];
let browser;
after(async () => {
  await browser?.close();
  for (const server of servers) server.kill("SIGTERM");
  for (const folder of temporaries) rmSync(folder, { recursive: true, force: true });
});

// Starts `openrecipes serve --port 0 --dir DIR` and resolves to its base URL.
function serve(dir) {
  return new Promise((resolve, reject) => {
    const server = spawn(binary, ["serve", "--port", "0", "--dir", dir], { stdio: ["ignore", "pipe", "pipe"] });
    servers.push(server);
    let output = "";
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${output}`)), 10000);
    server.stdout.on("data", (chunk) => {
      output += chunk;
      const match = output.match(/at (http:\/\/127\.0\.0\.1:\d+\/)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    server.stderr.on("data", (chunk) => (output += chunk));
    server.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
  });
}

// How far the page scrolls sideways, and the outermost elements that stick out (for the message).
function sideways(page) {
  return page.evaluate(() => {
    const width = window.innerWidth;
    const out = [...document.querySelectorAll("body *")]
      .filter((e) => e.getBoundingClientRect().right > width + 1 && !e.closest(".table-wrap, pre"))
      .slice(0, 5)
      .map((e) => `${e.tagName.toLowerCase()}.${e.className}`);
    return { by: document.documentElement.scrollWidth - width, out };
  });
}

async function launch() {
  browser ??= await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  return browser;
}

// A new page that records every request it makes and every dialog script tries to open.
async function openPage(context) {
  const page = await context.newPage();
  const requests = [];
  const dialogs = [];
  page.on("request", (request) => requests.push(request.url()));
  page.on("dialog", async (dialog) => {
    dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  return { page, requests, dialogs };
}

test("the Qwen3.5-122B-A10B on H200 page ranks and figures the seed's three recipes", async () => {
  const base = await serve(join(source, "site"));
  const context = await (await launch()).newContext({ acceptDownloads: true });
  const { page, requests } = await openPage(context);
  const response = await page.goto(`${base}qwen3.5-122b-a10b/h200/index.html`);
  assert.equal(response.status(), 200);
  assert.equal(await page.locator("h1").innerText(), "Training Qwen3.5-122B-A10B on H200");

  const rows = page.locator("table.ranking tbody tr");
  assert.equal(await rows.count(), 3);
  assert.deepEqual(await page.locator("table.ranking td.tps .figure").allInnerTexts(), ["2,451.4", "2,366.7", "2,289.7"]);
  const scores = (await page.locator("table.ranking td.tps .figure").allInnerTexts()).map((t) => Number(t.replace(/,/g, "")));
  assert.ok(scores[0] > scores[1] && scores[1] > scores[2], "ranked best first");
  assert.deepEqual(await page.locator("table.ranking td.usd").allInnerTexts(), ["$0.90", "$0.93", "$0.96"]);

  // The 14-step recipe's deviation from the protocol stands in its row, under its figure, in
  // words that need no hovering; the other rows have none.
  const deviations = await rows.evaluateAll((all) => all.map((row) => {
    const note = row.querySelector("td.tps .deviation");
    if (!note) return null;
    const box = note.getBoundingClientRect();
    const figure = row.querySelector("td.tps .figure").getBoundingClientRect();
    return { text: note.innerText, visible: box.width > 0 && box.height > 0, below: box.top >= figure.bottom - 1 };
  }));
  assert.equal(deviations[0], null);
  assert.equal(deviations[2], null);
  assert.match(deviations[1].text, /Protocol deviation: 14 steps scored over steps 4-13 \(10 steps\), not the protocol's 20 steps/);
  assert.ok(deviations[1].visible && deviations[1].below, "the deviation is shown under the figure");
  assert.equal(await page.locator('tr[data-rank="2"] td.tps .deviation-mark').innerText(), "†");
  assert.match(await page.locator("article.recipe").nth(1).locator('dd[data-figure="deviation"]').innerText(), /^14 steps scored/);
  assert.equal(await page.locator('dd[data-figure="deviation"]').count(), 1);

  const cards = page.locator("article.recipe");
  assert.deepEqual(await cards.evaluateAll((all) => all.map((a) => a.id)),
                   ["attune-tp1-pp4-ep8-rc2", "attune-tp1-pp4-ep8", "attune-tp1-pp4-ep8-flex"]);
  assert.deepEqual(await page.locator('dd[data-figure="mfu"]').allInnerTexts(), [
    "13.4% (N = 9,008,136,192 active parameters per token)",
    "12.9% (N = 9,008,136,192 active parameters per token)",
    "12.5% (N = 9,008,136,192 active parameters per token)",
  ]);
  assert.deepEqual(await page.locator('dd[data-figure="cv"]').allInnerTexts(), ["0.57%", "0.61%", "0.66%"]);
  assert.deepEqual(await page.locator('dd[data-figure="tokens_per_s"]').allInnerTexts(), ["2,451.44", "2,366.73", "2,289.65"]);
  assert.match(await cards.nth(1).innerText(), /2026-10-11, 14-step run scored over steps 4–13/);
  // Each short card links the recipe's own page, which holds the rest: component tests, stack,
  // command and YAML.
  assert.deepEqual(await cards.evaluateAll((all) => all.map((a) => a.querySelector("h3 a").getAttribute("href"))),
                   ["attune-tp1-pp4-ep8-rc2.html", "attune-tp1-pp4-ep8.html", "attune-tp1-pp4-ep8-flex.html"]);
  assert.equal(await page.locator("pre.command").count(), 0, "the pair page holds no command");
  assert.match(await page.locator("#citation").innerText(), /@article\{fan2026attune,/);

  // The recipe's YAML link downloads the exact file of the repository.
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    cards.nth(0).locator("a.download").click(),
  ]);
  assert.equal(download.suggestedFilename(), "attune-tp1-pp4-ep8-rc2.yaml");
  const saved = readFileSync(await download.path());
  const original = readFileSync(join(source, "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-rc2.yaml"));
  assert.ok(saved.equals(original), "the downloaded recipe is byte-identical to recipes/...-rc2.yaml");

  await page.screenshot({ path: join(artifacts, "qwen3.5-122b-a10b-h200.png"), fullPage: true });

  // The recipe's own page: the full card, reached from the pair page's link.
  await cards.nth(2).locator("h3 a").click();
  await page.waitForURL(/attune-tp1-pp4-ep8-flex\.html$/);
  assert.match(await page.locator("h1").innerText(), /^attune-tp1-pp4-ep8-flex$/);
  assert.match(await page.locator("p.protocol").innerText(), /^#3 of 3 Qwen3\.5-122B-A10B on H200 recipes/);
  assert.match(await page.locator("article.recipe").innerText(), /flex dispatcher against an FP32 reference: H200, 2026-10-13/);
  assert.equal(await page.locator('dd[data-figure="tokens_per_s"]').innerText(), "2,289.65");
  assert.match(await page.locator("pre.command").innerText(), /--moe-token-dispatcher-type flex/);
  const yamlText = await page.locator("pre.recipe-file").innerText();
  assert.equal(yamlText.trimEnd(), readFileSync(join(source, "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-flex.yaml"), "utf8").trimEnd());
  assert.match(await page.locator("#citation").innerText(), /@article\{fan2026attune,/);
  await page.locator("p.crumbs a").nth(1).click();
  await page.waitForURL(/qwen3\.5-122b-a10b\/h200\/index\.html$/);
  // The anchors old links point at still land on the recipe's card.
  await page.goto(base + "qwen3.5-122b-a10b/h200/index.html#attune-tp1-pp4-ep8");
  assert.equal(await page.evaluate(() => document.querySelector(":target")?.id), "attune-tp1-pp4-ep8");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(artifacts, "qwen3.5-122b-a10b-h200-phone.png") });
  const overflow = await sideways(page);
  assert.ok(overflow.by <= 0, `the page scrolls sideways on a phone by ${overflow.by}px: ${overflow.out}`);
  assert.ok(requests.length > 0);

  for (const other of ["index.html", "fields.html", "running.html", "submit.html", "gpt-oss-20b/h200/index.html",
                       "gpt-oss-20b/h200/attune-tp1-pp2-ep4.html", "llama3-70b/h100/index.html"]) {
    assert.equal((await page.goto(base + other)).status(), 200, other);
    const overflow = await sideways(page);
    assert.ok(overflow.by <= 0, `${other} scrolls sideways on a phone by ${overflow.by}px: ${overflow.out}`);
  }
  await page.screenshot({ path: join(artifacts, "index-phone.png") });

  const outside = requests.filter((url) => !url.startsWith(base));
  assert.deepEqual(outside, [], "no request leaves localhost");
  await context.close();
});

test("text fields holding markup show as text and run nothing", async () => {
  const root = mkdtempSync(join(tmpdir(), "openrecipes-xss-"));
  temporaries.push(root);
  for (const entry of ["models.yaml", "models", "gpus.yaml", "authors.yaml", "site.yaml", "schema", "patches", "templates", "recipes"]) {
    cpSync(join(source, entry), join(root, entry), { recursive: true });
  }
  const script = "<script>window.__xss = 1; alert('xss')</script>";
  const image = "\"><img src=x onerror=\"window.__xss = 2; alert('xss')\">";
  let text = readFileSync(join(source, "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-rc2.yaml"), "utf8");
  const edit = (from, to) => {
    assert.ok(text.includes(from), `edit target ${from}`);
    text = text.replace(from, to);
  };
  edit("  highlights: max 8,192 tokens/GPU, recompute 2 layers, load-balancing loss off",
       `  highlights: '${script.replace(/'/g, "''")}'`);
  edit("  summary: passed\n", `  summary: '${image.replace(/'/g, "''")}'\n`);
  edit("  deepep: 1.2.1\n", `  deepep: '${image.replace(/'/g, "''")}'\n`);
  edit("  TORCHINDUCTOR_COMPILE_THREADS: '1'\n", `  TORCHINDUCTOR_COMPILE_THREADS: '${script.replace(/'/g, "''")}'\n`);
  text += `notes: |\n  ${script}\n\n  - ${image}\n`;
  writeFileSync(join(root, "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-xss.yaml"), text);
  // A model without a recipe shows its notes on its "Not measured yet" pages.
  const models = readFileSync(join(root, "models.yaml"), "utf8");
  const notes = "      No recipe yet. Llama 3 8B, dense";
  assert.ok(models.includes(notes), "edit target: the Llama-3-8B notes");
  writeFileSync(join(root, "models.yaml"), models.replace(notes, `      ${script} ${image}\n\n${notes}`));
  execFileSync(binary, ["--root", root, "build"], { stdio: "pipe" });

  const context = await (await launch()).newContext();
  const served = await serve(join(root, "site"));
  const pages = [];
  for (const path of ["qwen3.5-122b-a10b/h200/index.html", "qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-xss.html",
                      "llama3-8b/h100/index.html"]) {
    pages.push(served + path, pathToFileURL(join(root, "site", path)).href);
  }
  for (const url of pages) {  // served (with its CSP) and from file:// (with none)
    const full = url.includes("-xss.html");  // the recipe's page shows every field; the pair page a few
    const { page, dialogs } = await openPage(context);
    await page.goto(url);
    await page.waitForTimeout(300);
    assert.equal(await page.evaluate(() => window.__xss), undefined, `${url}: injected script ran`);
    assert.deepEqual(dialogs, [], `${url}: a dialog opened`);
    assert.equal(await page.locator("img").count(), 0, `${url}: markup became an element`);
    assert.equal(await page.locator("script:not([src])").count(), 0, `${url}: an inline script was injected`);
    const unmeasured = url.includes("llama3-8b");
    const card = page.locator(unmeasured ? "section.model-notes" : "#attune-tp1-pp4-ep8-xss");
    const shown = await card.innerText();
    assert.ok(shown.includes(script), `${url}: the <script> text is shown as text`);
    if (full || unmeasured) assert.ok(shown.includes(image), `${url}: the <img> text is shown as text`);
    const shot = `xss-${full ? "recipe-" : unmeasured ? "unmeasured-" : ""}${url.startsWith("file:") ? "file" : "served"}.png`;
    await page.screenshot({ path: join(artifacts, shot) });
    await page.close();
  }
  await context.close();
});

// axe-core's serious and critical violations on the page, one line each.
async function seriousViolations(page) {
  // Evaluated through the driver, so the page's Content-Security-Policy does not apply.
  await page.evaluate(readFileSync(join(source, "tests/browser/node_modules/axe-core/axe.min.js"), "utf8"));
  const results = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
}

// The lines of `output` from the one starting with `head` through the one that closes its flow
// list(s): `score`'s step_times_s, `converge`'s losses (each list may wrap over several lines).
function blockFrom(output, head, lists) {
  const lines = output.split("\n");
  const start = lines.findIndex((line) => line.startsWith(head));
  assert.ok(start >= 0, `no ${head.trim()} in:\n${output}`);
  let end = start, closed = 0;
  while (closed < lists) if (lines[end++].trimEnd().endsWith("]")) ++closed;
  return lines.slice(start, end).join("\n") + "\n";
}
const numbersIn = (list) => list.slice(list.indexOf("[") + 1, list.indexOf("]")).split(",").map(Number);

test("the pictures draw the recipe's step times and losses, and the pair's figures as bars", async () => {
  // The gpt-oss recipe with its run's per-step fields, as `score` and `converge` print them.
  const root = mkdtempSync(join(tmpdir(), "openrecipes-charts-"));
  temporaries.push(root);
  for (const entry of ["models.yaml", "models", "gpus.yaml", "authors.yaml", "site.yaml", "schema", "patches", "templates", "recipes", "data"]) {
    cpSync(join(source, entry), join(root, entry), { recursive: true });
  }
  const logs = join(source, "tests/fixtures/logs");
  const recipePath = join(root, "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml");
  const scored = execFileSync(binary, ["score", join(logs, "megatron_lm_gpt_oss_20b_8xh200.log"), "--recipe", recipePath], { encoding: "utf8" });
  const stepTimes = blockFrom(scored, "  step_times_s:", 1);
  const converged = execFileSync(binary, ["converge", join(logs, "megatron_lm_gpt_oss_20b_8xh200.log"),
                                          join(logs, "megatron_lm_gpt_oss_20b_reference_arm.log")], { encoding: "utf8" });
  // converge's block replaces the recipe's own (the fixture's reference arm is not the recipe's).
  const convergence = blockFrom(converged, "  convergence:", 2);
  const losses = convergence.slice(convergence.indexOf("    losses:"));
  let text = readFileSync(recipePath, "utf8");
  assert.ok(text.includes("  window_tokens: 15728640\n"));
  text = text.replace("  window_tokens: 15728640\n", "  window_tokens: 15728640\n" + stepTimes);
  text = text.slice(0, text.indexOf("  convergence:\n")) + convergence + text.slice(text.indexOf("  rules:"));
  writeFileSync(recipePath, text);
  execFileSync(binary, ["--root", root, "validate", recipePath], { stdio: "pipe" });  // the figures agree
  execFileSync(binary, ["--root", root, "build"], { stdio: "pipe" });
  const times = numbersIn(stepTimes.replace(/\n\s*/g, " "));
  const [candidate, reference] = losses.split(/candidate:|reference:/).slice(1).map((list) => numbersIn(list.replace(/\n\s*/g, " ")));
  assert.equal(times.length, 20);
  assert.equal(candidate.length, 20);

  const base = await serve(join(root, "site"));
  const context = await (await launch()).newContext();
  const { page, requests } = await openPage(context);
  await page.goto(base + "gpt-oss-20b/h200/attune-tp1-pp2-ep4.html");
  const chart = page.locator("figure#step-time-chart");
  const svg = chart.locator("svg");
  assert.equal(await svg.getAttribute("role"), "img");
  assert.equal(await svg.getAttribute("aria-labelledby"), "step-time-chart-title step-time-chart-desc");
  assert.equal(await svg.locator("title").textContent(), "Step time per step");
  assert.match(await svg.locator("desc").textContent(), /scored window, steps 5 to 19/);
  await svg.screenshot({ path: join(artifacts, "chart-step-time.png") });
  const box = await svg.boundingBox();
  assert.ok(box.width > 300 && box.height > 100, `the step-time chart is drawn (${box.width}x${box.height})`);
  assert.equal((await svg.locator("polyline").getAttribute("points")).trim().split(/\s+/).length, 20);
  assert.equal(await svg.locator("circle").count(), 20);
  assert.equal(await svg.locator("rect.band").count(), 1);
  // The data table holds the recipe's own numbers.
  await chart.locator("summary").click();
  const cells = await chart.locator("table tbody tr").evaluateAll((rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  assert.deepEqual(cells.map((row) => Number(row[1])), times);
  assert.deepEqual(cells.map((row) => row[2] === "yes"), times.map((_, step) => step >= 5));

  const lossChart = page.locator("figure#loss-chart");
  await lossChart.locator("svg").screenshot({ path: join(artifacts, "chart-loss.png") });
  assert.equal(await lossChart.locator("svg polyline").count(), 2);
  assert.equal(await lossChart.locator("svg polyline.series-b").count(), 1);
  await lossChart.locator("summary").click();
  const lossCells = await lossChart.locator("table tbody tr").evaluateAll((rows) => rows.map((r) => [...r.cells].map((c) => Number(c.textContent))));
  assert.deepEqual(lossCells.map((row) => row[1]), candidate);
  assert.deepEqual(lossCells.map((row) => row[2]), reference);
  await page.screenshot({ path: join(artifacts, "recipe-charts.png"), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = await sideways(page);
  assert.ok(overflow.by <= 0, `the recipe page with charts scrolls sideways on a phone by ${overflow.by}px: ${overflow.out}`);
  await page.screenshot({ path: join(artifacts, "recipe-charts-phone.png"), fullPage: true });
  assert.deepEqual(await seriousViolations(page), [], "axe-core on the recipe page with its charts");

  // The pair page: a bar per ranked recipe, in rank order, with the table's figures.
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(base + "qwen3.5-122b-a10b/h200/index.html");
  const ranked = await page.locator("table.ranking tbody td.tps .figure").allInnerTexts();
  const bars = page.locator("figure#tokens-chart svg");
  await page.locator("section.charts").screenshot({ path: join(artifacts, "chart-bars.png") });
  assert.deepEqual(await bars.locator("text.bar-value").allTextContents(), ranked);
  const widths = await bars.locator("rect.bar").evaluateAll((all) => all.map((r) => Number(r.getAttribute("width"))));
  assert.equal(widths.length, 3);
  assert.ok(widths[0] > widths[1] && widths[1] > widths[2], `bars by rank: ${widths}`);
  const figuresRatio = Number(ranked[2].replace(/,/g, "")) / Number(ranked[0].replace(/,/g, ""));
  assert.ok(Math.abs(widths[2] / widths[0] - figuresRatio) < 0.01, "bar lengths are proportional to the figures");
  assert.deepEqual(await page.locator("figure#usd-chart svg text.bar-value").allTextContents(),
                   await page.locator("table.ranking tbody td.usd").allInnerTexts());
  assert.deepEqual(await seriousViolations(page), [], "axe-core on the pair page with its bars");
  assert.deepEqual(requests.filter((url) => !url.startsWith(base)), [], "nothing is loaded from another host");
  await context.close();
});

test("the index and pair tables sort by any column and filter by model, family, GPU type and author", async () => {
  // The bundled site: the Qwen pair's three recipes differ in every figure; the index has two
  // models of two families on six GPU types.
  const base = await serve(join(source, "site"));
  const context = await (await launch()).newContext();
  const { page } = await openPage(context);

  await page.goto(base + "qwen3.5-122b-a10b/h200/index.html");
  const figures = () => page.locator("table.ranking tbody tr:not([hidden]) td.tps .figure").allInnerTexts();
  assert.deepEqual(await figures(), ["2,451.4", "2,366.7", "2,289.7"]);
  const tpsHead = page.locator("table.ranking thead th").nth(1);
  await tpsHead.locator("button.sort").click();  // ascending
  assert.equal(await tpsHead.getAttribute("aria-sort"), "ascending");
  assert.deepEqual(await figures(), ["2,289.7", "2,366.7", "2,451.4"]);
  await tpsHead.locator("button.sort").click();  // and back
  assert.equal(await tpsHead.getAttribute("aria-sort"), "descending");
  assert.deepEqual(await figures(), ["2,451.4", "2,366.7", "2,289.7"]);
  const usdHead = page.locator("table.ranking thead th").nth(2);
  await usdHead.locator("button.sort").click();
  assert.deepEqual(await page.locator("table.ranking tbody td.usd").allInnerTexts(), ["$0.90", "$0.93", "$0.96"]);
  // One author on this page: nothing to filter, so no filter form.
  assert.equal(await page.locator("form.filters").count(), 0);

  await page.goto(base + "index.html");
  const visibleModels = () => page.locator("section.family:not([hidden]) tbody tr:not([hidden]) th[scope=row]")
    .evaluateAll((all) => all.map((th) => th.firstChild.textContent));
  const allModels = ["DeepSeek-V3", "gpt-oss-120b", "gpt-oss-20b", "Llama-3-70B", "Llama-3-8B", "Llama-3.1-405B",
                     "Nemotron-3-Nano-30B-A3B", "Qwen3-30B-A3B", "Qwen3.5-122B-A10B"];
  assert.deepEqual(await visibleModels(), allModels);
  const form = page.locator("form.filters");
  assert.deepEqual(await form.locator("select").evaluateAll((all) => all.map((s) => s.name)), ["model", "family", "gpu"]);
  await form.locator("select[name=family]").selectOption("Qwen");
  assert.deepEqual(await visibleModels(), ["Qwen3-30B-A3B", "Qwen3.5-122B-A10B"]);
  assert.match(await form.locator(".filter-status").innerText(), /Showing 2 of 9 rows/);
  await form.locator("select[name=family]").selectOption("");
  await form.locator("select[name=model]").selectOption("gpt-oss-20b");
  assert.deepEqual(await visibleModels(), ["gpt-oss-20b"]);
  await form.locator("select[name=model]").selectOption("");
  await form.locator("select[name=gpu]").selectOption("H200");
  const heads = await page.locator("section.family").first().locator("thead th:not([hidden])").allInnerTexts();
  assert.deepEqual(heads, ["Model", "H200"]);
  assert.deepEqual(await visibleModels(), allModels);
  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = await sideways(page);
  assert.ok(overflow.by <= 0, `the filtered index scrolls sideways on a phone by ${overflow.by}px: ${overflow.out}`);
  await page.screenshot({ path: join(artifacts, "index-filtered-phone.png") });

  // search.json: the same catalog as data, each entry pointing at pages that exist.
  const search = await (await page.request.get(base + "search.json")).json();
  assert.equal(search.recipes.length, 4);
  const qwen = search.recipes.filter((r) => r.model === "Qwen3.5-122B-A10B");
  assert.deepEqual(qwen.map((r) => [r.rank, r.recipe, r.tokens_per_s_per_gpu]), [
    [1, "attune-tp1-pp4-ep8-rc2", 2451.44], [2, "attune-tp1-pp4-ep8", 2366.73], [3, "attune-tp1-pp4-ep8-flex", 2289.65]]);
  for (const entry of search.recipes) {
    assert.equal((await page.request.get(base + entry.page)).status(), 200, entry.page);
    assert.equal((await page.request.get(base + entry.yaml)).status(), 200, entry.yaml);
  }
  await context.close();
});

// The rows of data/measurements/megatron-bridge.yaml for a model slug and GPU type.
function publishedRows(model, gpu) {
  const text = readFileSync(join(source, "data/measurements/megatron-bridge.yaml"), "utf8");
  return text.split("\n  - release:").slice(1)
    .filter((block) => block.includes(`\n    model: ${model}\n`) && block.includes(`\n    gpu: ${gpu}\n`));
}

test("a pair with no recipe has a Not measured yet page: predicted layouts apart, published runs cited", async () => {
  const base = await serve(join(source, "site"));
  const context = await (await launch()).newContext();
  const { page, requests } = await openPage(context);
  await page.goto(base + "index.html");
  // The index links the pair, with no figure: predictions never fill its best-figure cells.
  const cell = page.locator('tr[data-filter-model="Llama-3-70B"] td[data-filter-gpu="H100"]');
  assert.equal(await cell.getAttribute("data-value"), null);
  assert.equal(await cell.locator("strong").count(), 0);
  await cell.locator("a.unmeasured").click();
  assert.equal(new URL(page.url()).pathname, "/llama3-70b/h100/index.html");
  assert.match(await page.locator("h1").innerText(), /Llama-3-70B on H100: not measured yet/);

  const predictions = page.locator("section.predictions");
  assert.match(await predictions.locator("h2").innerText(), /predicted, not measured/);
  const rows = predictions.locator("table.prediction-table tbody tr");
  assert.equal(await rows.count(), 3);
  const figures = await rows.locator("td.predicted").evaluateAll((all) => all.map((td) => Number(td.dataset.value)));
  for (const [i, value] of figures.entries()) {
    assert.ok(value > 0, `suggestion ${i + 1} has a predicted figure`);
    if (i > 0) assert.ok(figures[i - 1] >= value, "suggestions are best first");
  }
  for (const text of await rows.locator("td.predicted").allInnerTexts()) assert.match(text, /^≈[\d,]+$/);
  for (const text of await rows.locator("td:nth-child(5)").allInnerTexts()) assert.match(text, /^±\d+%/);
  // Each suggestion's commands export exactly its layout and measure the draft they write.
  const commands = await predictions.locator("pre code").allInnerTexts();
  assert.equal(commands.length, 3);
  const layouts = await rows.locator("td:nth-child(2)").allInnerTexts();
  for (const [i, text] of commands.entries()) {
    const [exportLine, measureLine] = text.split("\n");
    assert.match(exportLine, /^openrecipes export --model llama3-70b --gpu H100 --gpus \d+ --layout "/);
    const tp = layouts[i].match(/TP(\d+)/)[1];
    assert.ok(exportLine.includes(`--layout "TP${tp} `), `${exportLine} exports ${layouts[i]}`);
    const draft = exportLine.match(/-o (\S+)$/)[1];
    assert.equal(measureLine, `openrecipes measure ${draft} --slurm --partition PARTITION --rows ROWS.parquet`);
  }

  // The published runs of the pair, every one of them, each citing the table's line.
  const expected = publishedRows("llama3-70b", "H100");
  assert.ok(expected.length > 0);
  const published = page.locator("section.published table tbody tr");
  assert.equal(await published.count(), expected.length);
  const emptyNotes = await published.locator("span.muted").evaluateAll((all) => all.filter((s) => !s.textContent.trim()).length);
  assert.equal(emptyNotes, 0, "no empty variant or note line");
  for (const href of await published.locator("a").evaluateAll((all) => all.map((a) => a.href))) {
    assert.match(href, /^https:\/\/github\.com\/NVIDIA-NeMo\/Megatron-Bridge\/blob\/[0-9a-f]{40}\/docs\/[^#]+#L\d+$/);
  }
  // A ranked pair shows no published section when the tables never measured the model.
  await page.goto(base + "gpt-oss-20b/h200/index.html");
  assert.equal(await page.locator("section.published").count(), 0);
  assert.equal(await page.locator("section.predictions").count(), 0);
  const outside = requests.filter((url) => !url.startsWith(base));
  assert.deepEqual(outside, [], "no request leaves localhost");
  await context.close();
});

test("axe-core finds no serious or critical accessibility violation on any kind of page", async () => {
  const base = await serve(join(source, "site"));
  const context = await (await launch()).newContext();
  const { page } = await openPage(context);
  for (const path of ["index.html", "qwen3.5-122b-a10b/h200/index.html", "qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8.html",
                      "llama3-70b/h100/index.html", "fields.html", "running.html", "submit.html"]) {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(base + path);
      assert.deepEqual(await seriousViolations(page), [], `${path} at ${width}px`);
    }
  }
  await context.close();
});
