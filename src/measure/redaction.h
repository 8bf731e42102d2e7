// Taking out of what `measure` prints for the recipe what the submission guide
// (templates/submit.mustache) says to leave out: internal paths, image registry addresses, account,
// partition, cluster and node names (and the image and
// --env values, which name internal things).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace openrecipes {

/// Names to take out, each with what replaces it (`<account>`, `<cluster>`...).
struct RedactionTerms {
  std::vector<std::pair<std::string, std::string>>
      names;  ///< name -> replacement; names under 2 characters are ignored
  /// Adds `name` (when not empty) with `replacement`.
  void add(const std::string& name, const std::string& replacement);
};

/// `text` with each term replaced where it stands as a whole word (case-sensitive), every
/// registry address (`host.domain[:port]/...`, `host:port/...`) replaced by `<registry>` and every
/// absolute path (`/a/b`) by `<path>`.
std::string redact(const std::string& text, const RedactionTerms& terms);

/// A printed YAML block with redact() applied to each value and comment, never to a key (a
/// partition called `result` leaves `result:` alone).
std::string redact_yaml_block(const std::string& block, const RedactionTerms& terms);

}  // namespace openrecipes
