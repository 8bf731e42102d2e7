// An author that is a tool or team (authors.yaml): its file-name handle and how to cite it.
#pragma once

#include <string>
#include <vector>

#include "base/yaml_document.h"

namespace openrecipes {

/// One entry of authors.yaml.
struct Author {
  std::string name;    ///< as recipes give it in author.name
  std::string handle;  ///< in recipe file names
  std::string url;
  std::string citation_text;  ///< empty when the author asks for no citation
  std::string bibtex;
};

/// Reads authors from authors.yaml's root node (already checked against authors.schema.yaml).
std::vector<Author> authors_from_yaml(const YamlNode& root);

/// The handle a recipe's file name must start with: the GitHub handle (lowercased) when given, else
/// the handle authors.yaml lists for the name, else the name lowercased with runs of other
/// characters turned into '-'.
std::string author_handle(const std::string& github, const std::string& name,
                          const std::vector<Author>& authors);

}  // namespace openrecipes
