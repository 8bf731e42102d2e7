// SHA-256 through OpenSSL, as lowercase hex.
#pragma once

#include <string>
#include <string_view>

namespace openrecipes {

/// The SHA-256 of `bytes` as 64 lowercase hex digits (FIPS 180-4, via OpenSSL's EVP interface).
std::string sha256_hex(std::string_view bytes);

}  // namespace openrecipes
