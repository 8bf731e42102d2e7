#include "catalog/author.h"

#include <cctype>

#include "base/ascii.h"
#include "base/yaml_fields.h"

namespace openrecipes {

std::vector<Author> authors_from_yaml(const YamlNode& root) {
  std::vector<Author> authors;
  const YamlNode* list = root.find("authors");
  if (!list) return authors;
  for (const YamlNode& item : list->items) {
    Author a;
    a.name = field_string(item, "name");
    a.handle = field_string(item, "handle");
    a.url = field_string(item, "url");
    if (const YamlNode* citation = field_mapping(item, "citation")) {
      a.citation_text = field_string(*citation, "text");
      a.bibtex = field_string(*citation, "bibtex");
    }
    authors.push_back(std::move(a));
  }
  return authors;
}

std::string author_handle(const std::string& github, const std::string& name,
                          const std::vector<Author>& authors) {
  if (!github.empty()) return ascii_lowercase(github);
  for (const Author& author : authors) {
    if (author.name == name) return author.handle;
  }
  std::string slug;
  for (unsigned char c : name) {
    if (std::isalnum(c)) {
      slug += ascii_lower(static_cast<char>(c));
    } else if (!slug.empty() && slug.back() != '-') {
      slug += '-';
    }
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return slug;
}

}  // namespace openrecipes
