// The site's templates: a broken one comes back as a Problem at its line:column, not an exception.
#include "site/template_renderer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/parallel_for.h"
#include "test_support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

// A folder holding every template the site needs, each `text`.
fs::path templates_folder(const std::string& name, const std::string& text) {
  fs::path folder = testing::fresh_dir(name);
  for (const char* file : kSiteTemplates) {
    std::ofstream(folder / (std::string(file) + ".mustache")) << text;
  }
  return folder;
}

TEST(TemplateRenderer, RendersAContext) {
  Problems problems;
  std::optional<TemplateRenderer> renderer =
      TemplateRenderer::load(templates_folder("templates_ok", "<p>{{name}}</p>"), problems);
  ASSERT_TRUE(renderer) << testing::describe(problems);
  EXPECT_EQ(renderer->render("index", {{"name", "a < b"}}, problems), "<p>a &lt; b</p>");
  EXPECT_TRUE(problems.empty());
}

TEST(TemplateRenderer, ABadTemplateIsAProblemAtItsLineAndColumn) {
  fs::path folder = templates_folder("templates_bad", "<p>ok</p>");
  std::ofstream(folder / "pair.mustache") << "<h1>{{title}}</h1>\n<p>{{#rows}}open</p>\n";
  Problems problems;
  EXPECT_FALSE(TemplateRenderer::load(folder, problems));
  ASSERT_EQ(problems.size(), 1u) << testing::describe(problems);
  EXPECT_EQ(problems[0].file, (folder / "pair.mustache").string());
  EXPECT_EQ(problems[0].rule, "templates");
  EXPECT_EQ(problems[0].position.line, 2);
  EXPECT_NE(problems[0].message.find("the template does not parse"), std::string::npos)
      << problems[0].message;
}

TEST(TemplateRenderer, AnUnknownPartialIsAProblem) {
  fs::path folder = templates_folder("templates_partial", "<p>ok</p>");
  std::ofstream(folder / "index.mustache") << "{{> _missing}}";
  Problems problems;
  EXPECT_FALSE(TemplateRenderer::load(folder, problems));
  ASSERT_EQ(problems.size(), 1u) << testing::describe(problems);
  EXPECT_NE(problems[0].message.find("includes '_missing'"), std::string::npos)
      << problems[0].message;
}

TEST(TemplateRenderer, PartialsRenderWithTheContextAtTheirTagOnEveryThread) {
  fs::path folder = templates_folder("templates_partials", "<p>ok</p>");
  std::ofstream(folder / "_head.mustache") << "<h1>{{title}}</h1>";
  std::ofstream(folder / "_line_chart.mustache") << "[{{label}}{{> _foot}}]";
  std::ofstream(folder / "_foot.mustache") << "!";
  std::ofstream(folder / "pair.mustache") << "{{> _head}}{{#charts}}{{> _line_chart}}{{/charts}}";
  Problems problems;
  std::optional<TemplateRenderer> renderer = TemplateRenderer::load(folder, problems);
  ASSERT_TRUE(renderer) << testing::describe(problems);
  nlohmann::json context = {{"title", "T&"}, {"charts", {{{"label", "a"}}, {{"label", "b"}}}}};
  // Rendered again and again from two threads, as the site's pages are: the parsed templates
  // are shared, each render gives the same page.
  std::vector<std::string> pages(200);
  parallel_for(pages.size(), [&](std::size_t i) {
    Problems mine;
    pages[i] = renderer->render("pair", context, mine).value_or("failed");
  });
  for (const std::string& page : pages) EXPECT_EQ(page, "<h1>T&amp;</h1>[a!][b!]");
}

TEST(TemplateRenderer, PartialsThatIncludeEachOtherAreAProblem) {
  fs::path folder = templates_folder("templates_partial_loop", "<p>ok</p>");
  std::ofstream(folder / "_head.mustache") << "{{> _foot}}";
  std::ofstream(folder / "_foot.mustache") << "{{> _head}}";
  Problems problems;
  EXPECT_FALSE(TemplateRenderer::load(folder, problems));
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems[0].message.find("include each other more than 16 deep"), std::string::npos)
      << problems[0].message;
}

}  // namespace
}  // namespace openrecipes
