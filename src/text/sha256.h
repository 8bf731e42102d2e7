// SHA-256 through OpenSSL, as lowercase hex.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace openrecipes {

/// The SHA-256 of `bytes` as 64 lowercase hex digits (FIPS 180-4, via OpenSSL's EVP interface).
std::string sha256_hex(std::string_view bytes);

/// SHA-256 of a byte stream fed in pieces (FIPS 180-4, via OpenSSL's EVP interface).
class Sha256Stream {
 public:
  Sha256Stream();
  ~Sha256Stream();
  Sha256Stream(const Sha256Stream&) = delete;
  Sha256Stream& operator=(const Sha256Stream&) = delete;
  /// Appends `bytes` to the hashed stream.
  void update(const void* bytes, std::size_t size);
  /// The digest of everything fed, as 64 lowercase hex digits; the stream is finished after.
  std::string hex_digest();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The SHA-256 of the file at `path` and its size in bytes, read in 1 MiB pieces. Throws IoError
/// naming the file when it cannot be read (BugError, as every function here, if OpenSSL fails).
std::pair<std::string, std::uint64_t> sha256_file(const std::string& path);

}  // namespace openrecipes
