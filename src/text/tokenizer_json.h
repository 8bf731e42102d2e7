// Reads a tokenizer.json in one streaming pass: the large parts (model.vocab, model.merges) go
// straight into vectors, the rest into a small JSON value. Building a full JSON tree of a 28 MB
// o200k file and tearing it down took most of a second; this keeps loading well under one.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace openrecipes {

/// The parts of a tokenizer.json the tokenizer needs.
struct TokenizerJson {
  nlohmann::json rest;  ///< the document without model.vocab and model.merges
  std::vector<std::pair<std::string, std::int64_t>> vocab;   ///< byte-level text, id; file order
  std::vector<std::pair<std::string, std::string>> merges;   ///< left, right; rank order
};

/// Parses `bytes`. Throws std::runtime_error naming what is wrong (bad JSON with its byte
/// position, a merge that is neither "a b" nor ["a", "b"], a vocabulary id that is not an integer).
TokenizerJson parse_tokenizer_json(const std::string& bytes);

}  // namespace openrecipes
