// Reads a tokenizer.json in one streaming pass: the large parts (model.vocab, model.merges) go
// straight into vectors, the rest into a small JSON value. Building a full JSON tree of a 28 MB
// o200k file and tearing it down took most of a second; this keeps loading well under one.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/problem.h"

namespace openrecipes {

/// The parts of a tokenizer.json the tokenizer needs.
struct TokenizerJson {
  nlohmann::json rest;  ///< the document without model.vocab and model.merges
  std::vector<std::pair<std::string, std::int64_t>> vocab;  ///< byte-level text, id; file order
  std::vector<std::pair<std::string, std::string>> merges;  ///< left, right; rank order
};

/// Parses `bytes`, the contents of `file`. Returns nullopt and appends one Problem (rule
/// `tokenizer.json`) naming what is wrong: bad JSON with its byte offset and line:col, a merge
/// that is neither "a b" nor ["a", "b"] (field `model.merges[N]`), a vocabulary id that is not an
/// integer (`model.vocab["token"]`). Never throws for bad input.
std::optional<TokenizerJson> parse_tokenizer_json(const std::string& bytes, const std::string& file,
                                                  Problems& problems);

}  // namespace openrecipes
