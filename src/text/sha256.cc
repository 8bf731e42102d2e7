#include "text/sha256.h"

#include <openssl/evp.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "base/error.h"

namespace openrecipes {
namespace {

std::string hex(const unsigned char* digest, unsigned int length) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 15];
  }
  return out;
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1) {
    throw BugError("OpenSSL SHA-256 failed");
  }
  return hex(digest.data(), length);
}

struct Sha256Stream::Impl {
  EVP_MD_CTX* context = EVP_MD_CTX_new();
  ~Impl() { EVP_MD_CTX_free(context); }
};

Sha256Stream::Sha256Stream() : impl_(std::make_unique<Impl>()) {
  if (!impl_->context || EVP_DigestInit_ex(impl_->context, EVP_sha256(), nullptr) != 1) {
    throw BugError("OpenSSL SHA-256 failed to start");
  }
}

Sha256Stream::~Sha256Stream() = default;

void Sha256Stream::update(const void* bytes, std::size_t size) {
  if (EVP_DigestUpdate(impl_->context, bytes, size) != 1) throw BugError("OpenSSL SHA-256 failed");
}

std::string Sha256Stream::hex_digest() {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(impl_->context, digest.data(), &length) != 1) {
    throw BugError("OpenSSL SHA-256 failed");
  }
  return hex(digest.data(), length);
}

std::pair<std::string, std::uint64_t> sha256_file(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) throw IoError(path, path + ": cannot read (" + std::strerror(errno) + ")");
  Sha256Stream hash;
  std::vector<char> buffer(1 << 20);
  std::uint64_t total = 0;
  std::size_t got;
  while ((got = std::fread(buffer.data(), 1, buffer.size(), file)) > 0) {
    hash.update(buffer.data(), got);
    total += got;
  }
  bool failed = std::ferror(file);
  std::fclose(file);
  if (failed) throw IoError(path, path + ": read error");
  return {hash.hex_digest(), total};
}

}  // namespace openrecipes
