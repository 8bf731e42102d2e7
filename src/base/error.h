// The project's one exception hierarchy (docs/architecture.md, "Errors").
//
// Bad input is never thrown: a library function that reads user input returns what is wrong as
// Problems (base/problem.h), with the file, line:col, field, rule, expected and found. Exceptions
// are for what no input check can prevent: an I/O failure (a file that cannot be read or written,
// a program that cannot be started) and bugs (a broken invariant). `main` catches Error once and
// exits 1.
#pragma once

#include <stdexcept>
#include <string>

namespace openrecipes {

/// The root of the hierarchy; `what()` is a sentence for the user.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An operating-system operation failed: reading or writing `path`, starting a program. `what()`
/// names the path (or program) and the reason (strerror or the program's own message).
class IoError : public Error {
 public:
  IoError(std::string path, const std::string& message) : Error(message), path_(std::move(path)) {}
  /// The file or program the operation was on.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// A broken invariant: a bug in OpenRecipes, never the user's input. `main` prints it as an
/// internal error with a request to report it.
class BugError : public Error {
 public:
  using Error::Error;
};

}  // namespace openrecipes
