#include "validate/hygiene_scan.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <optional>

#include "base/ascii.h"
#include "base/error.h"
#include "text/pattern.h"

namespace openrecipes {
namespace {

// The value of an option or assignment, after `=` or blanks and an optional opening quote, unless
// it is a variable (`$X`, `"$X"`) or a placeholder (`<account>`).
#define HYGIENE_VALUE R"((?:=|[ \t]+)["']?\K(?![$<"'])[^\s"';|&)\\]+)"

// Slurm's options naming an account, partition, reservation, QOS, nodes or clusters
// (https://slurm.schedmd.com/sbatch.html; srun and salloc take the same).
constexpr const char* kSchedulerLong =
    R"((?<![\w-])--(?:account|partition|reservation|qos|nodelist|clusters))" HYGIENE_VALUE;
constexpr const char* kSchedulerDirective = R"((?m)^[ \t]*#SBATCH\b[^\n]*)";
constexpr const char* kSchedulerVariable =
    R"((?<![\w$])(?:SLURM|SBATCH|SALLOC|SRUN)_\w+=["']?\K(?![$<"'])[^\s"';|&)\\]+)";
constexpr const char* kSlurmCommand = R"((?<![\w.-])(?:srun|sbatch|salloc)(?![\w.-]))";
constexpr const char* kUserHome = R"((?<![\w.$}/-])/(?:home|Users)/(?![$<{])[\w.-]+)";
constexpr const char* kUserTilde = R"((?<![\w.$}/~-])~[A-Za-z_][\w.-]*(?=/|[\s"':;,)]|$))";
constexpr const char* kImageOption = R"((?<![\w-])--(?:container-image|image))" HYGIENE_VALUE;
constexpr const char* kImagePull = R"((?<![\w-])(?:docker|podman)[ \t]+pull[ \t]+\K[^\s"';|&)$<]+)";
constexpr const char* kImageScheme = R"((?<![\w-])(?:docker|oci)://\K[^\s"';|&)$<]+)";
// host.domain[:port]/path:tag or @sha256:digest, the shape of an image reference with a host.
constexpr const char* kImageReference =
    R"((?<![\w./:@-])[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+(?::\d+)?/[\w./-]+(?::[\w.-]+|@sha256:[0-9a-f]{64}))";
constexpr const char* kMasterAddress = R"((?<![\w$])MASTER_ADDR=["']?\K(?![$<"'])[^\s"';|&)\\]+)";
constexpr const char* kMasterOption =
    R"((?<![\w-])--(?:master[-_]addr|rdzv[-_]endpoint))" HYGIENE_VALUE;
constexpr const char* kInternalHost =
    R"((?i)(?<![\w.-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+)"
    R"((?:internal|local|corp|lan|intra|intranet|localdomain|home\.arpa)(?![\w-]|\.[\w-]))";
constexpr const char* kIpv4 =
    R"((?<![\w.-])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d))"
    R"((?![\w-]|\.\w))";
constexpr const char* kIpv6 =
    R"((?i)(?<![\w:.])(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}(?![\w:]|\.\w))";
// An absolute path at the start of a word: after a blank, `=`, `(`, `,`, `[`, `:` (a PATH list),
// `;`, `|`, `&`, an output redirection `>`, or an opening quote; never after a name, `$X`, `}` or
// `)` (behind a variable), nor after `<` (`</script>` in a text is markup, not a path).
constexpr const char* kPath =
    R"((?m)(?:(?<=^)|(?<=[\s=(,\[:;|&>])|(?<=^["'])|(?<=[\s=(,\[:]["']))/[\w.+@%~-]+(?:/[\w.+@%~-]*)*)";

#undef HYGIENE_VALUE

// Whether `text` holds one of `literals`, ASCII case ignored when `ignore_case`.
bool holds_any(std::string_view text, std::initializer_list<std::string_view> literals,
               bool ignore_case = false) {
  if (!ignore_case) {
    return std::any_of(literals.begin(), literals.end(),
                       [&](std::string_view l) { return text.find(l) != std::string_view::npos; });
  }
  const std::string lower = ascii_lowercase(text);
  return std::any_of(literals.begin(), literals.end(),
                     [&](std::string_view l) { return lower.find(l) != std::string::npos; });
}

// Whether `text` holds a run of digits and dots with three dots between four digit groups, as
// every match of kIpv4 is.
bool holds_dotted_quad(std::string_view text) {
  int groups = 0;  // digit groups of the current run, each ended by one dot
  bool digits = false;
  for (char c : text) {
    if (ascii_digit(c)) {
      digits = true;
    } else if (c == '.' && digits) {
      ++groups;
      digits = false;
    } else {
      groups = 0;
      digits = false;
    }
    if (groups >= 3 && digits) return true;
  }
  return false;
}

// Whether a match of the pattern `source` can lie in `text`: false when `text` lacks a literal
// every match holds (each pattern above names it). The patterns are tried at nearly every
// position of a text, and a recipe's command and notes hold few of these literals, so this
// check skips most of the matching (and never changes what is found: HygieneScan's tests
// compare it with the patterns alone).
bool may_match(const char* source, std::string_view text) {
  if (source == kSchedulerLong) {
    return holds_any(
        text, {"--account", "--partition", "--reservation", "--qos", "--nodelist", "--clusters"});
  }
  if (source == kSchedulerDirective) return holds_any(text, {"#SBATCH"});
  if (source == kSchedulerVariable)
    return holds_any(text, {"SLURM_", "SBATCH_", "SALLOC_", "SRUN_"});
  if (source == kSlurmCommand) return holds_any(text, {"srun", "sbatch", "salloc"});
  if (source == kUserHome) return holds_any(text, {"/home/", "/Users/"});
  if (source == kUserTilde) return holds_any(text, {"~"});
  if (source == kImageOption) return holds_any(text, {"--container-image", "--image"});
  if (source == kImagePull) return holds_any(text, {"pull"});
  if (source == kImageScheme) return holds_any(text, {"://"});
  if (source == kMasterAddress) return holds_any(text, {"MASTER_ADDR"});
  if (source == kMasterOption) {
    return holds_any(text,
                     {"--master-addr", "--master_addr", "--rdzv-endpoint", "--rdzv_endpoint"});
  }
  if (source == kInternalHost) {
    return holds_any(text, {".internal", ".local", ".corp", ".lan", ".intra", ".home.arpa"}, true);
  }
  if (source == kIpv4) return holds_dotted_quad(text);
  if (source == kIpv6) return holds_any(text, {":"});
  if (source == kPath || source == kImageReference) return holds_any(text, {"/"});
  return true;
}

// Each pattern above, compiled once (thread-safe static initialisation).
const Pattern& pattern(const char* source) {
  static const std::map<const char*, Pattern> all = [] {
    std::map<const char*, Pattern> out;
    for (const char* each :
         {kSchedulerLong, kSchedulerDirective, kSchedulerVariable, kSlurmCommand, kUserHome,
          kUserTilde, kImageOption, kImagePull, kImageScheme, kImageReference, kMasterAddress,
          kMasterOption, kInternalHost, kIpv4, kIpv6, kPath}) {
      Problems problems;
      std::optional<Pattern> compiled = Pattern::compile(each, {}, problems);
      if (!compiled) throw BugError("hygiene pattern does not compile: " + problems[0].message);
      out.emplace(each, std::move(*compiled));
    }
    return out;
  }();
  return all.at(source);
}

// Every match of the pattern `source` in `text`, as [begin, end) offsets; empty ones skipped.
std::vector<std::pair<std::size_t, std::size_t>> matches(const char* source,
                                                         std::string_view text) {
  if (!may_match(source, text)) return {};
  return pattern(source).find_all(text);
}

// matches without may_match's check, for the test that compares the two.
std::vector<std::pair<std::size_t, std::size_t>> matches_unfiltered(const char* source,
                                                                    std::string_view text) {
  return pattern(source).find_all(text);
}

constexpr std::array<std::string_view, 12> kSystemFolders = {
    "dev", "proc", "sys", "tmp", "run", "usr", "bin", "sbin", "lib", "lib64", "etc", "var/tmp"};

constexpr std::array<std::string_view, 9> kPublicRegistries = {
    "docker.io", "registry-1.docker.io", "index.docker.io",   "nvcr.io",        "ghcr.io",
    "quay.io",   "public.ecr.aws",       "mcr.microsoft.com", "registry.k8s.io"};

// Whether an absolute path lies in a system folder (or is a home folder, which kUserHome owns).
bool allowed_path(std::string_view path) {
  std::string_view rest = path.substr(1);
  for (std::string_view folder : kSystemFolders) {
    if (rest.substr(0, folder.size()) == folder &&
        (rest.size() == folder.size() || rest[folder.size()] == '/'))
      return true;
  }
  std::string_view first = rest.substr(0, rest.find('/'));
  return first == "home" || first == "Users";
}

// The registry host of an image reference (`host[:port]/repo:tag`, enroot's `host#repo`), or ""
// when it has none (Docker Hub). Lowercase, without the port.
std::string registry_host(std::string_view image) {
  std::size_t end = image.find('#');
  if (end == std::string_view::npos) {
    end = image.find('/');
    if (end == std::string_view::npos) return "";
    std::string_view first = image.substr(0, end);
    if (first.find('.') == std::string_view::npos && first.find(':') == std::string_view::npos &&
        first != "localhost")
      return "";
  }
  std::string host = ascii_lowercase(image.substr(0, end));
  if (std::size_t at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
  return host.substr(0, host.find(':'));
}

bool public_registry(const std::string& host) {
  return host.empty() || std::find(kPublicRegistries.begin(), kPublicRegistries.end(), host) !=
                             kPublicRegistries.end();
}

constexpr const char* kSchedulerWhat = "a Slurm account, partition, node or cluster name";

// srun's options that take no value (https://slurm.schedmd.com/srun.html) and pyxis's switches
// (https://github.com/NVIDIA/pyxis/wiki/Usage), so that the word after one is read as the next
// option or the program.
bool switch_option(std::string_view option) {
  static constexpr std::array<std::string_view, 13> kSwitches = {"--exclusive",
                                                                 "--overlap",
                                                                 "--no-kill",
                                                                 "--unbuffered",
                                                                 "--label",
                                                                 "--pty",
                                                                 "--verbose",
                                                                 "--quiet",
                                                                 "--container-mount-home",
                                                                 "--no-container-mount-home",
                                                                 "--container-remap-root",
                                                                 "--no-container-remap-root",
                                                                 "--no-container-entrypoint"};
  return std::find(kSwitches.begin(), kSwitches.end(), option) != kSwitches.end();
}

// An upper-case word (ACCOUNT, MY_PARTITION) stands for a value, as documentation writes it.
bool upper_case_placeholder(std::string_view word) {
  return !word.empty() && std::isupper(static_cast<unsigned char>(word[0])) &&
         std::all_of(word.begin(), word.end(), [](char c) {
           return std::isupper(static_cast<unsigned char>(c)) ||
                  std::isdigit(static_cast<unsigned char>(c)) || c == '_';
         });
}

// A word that names something itself, not through a variable or a placeholder (`<x>`, `X`).
bool literal_word(std::string_view word) {
  std::size_t start = word.find_first_not_of("\"' ");
  if (start == std::string_view::npos || word[start] == '$' || word[start] == '<') return false;
  std::string_view rest = word.substr(start);
  return !upper_case_placeholder(rest.substr(0, rest.find_first_of("\"'")));
}

bool loopback(std::string_view address) {
  return address.substr(0, 4) == "127." || address == "0.0.0.0" || address == "localhost";
}

// A plausible IPv6 address: one `::` at most (else eight groups), two groups with digits, one of
// three or more (so `a[1::2]` and times like 01:00:00 are not addresses); not ::1 or ::.
bool ipv6_address(std::string_view text) {
  std::size_t compressed = text.find("::");
  if (compressed != std::string_view::npos &&
      text.find("::", compressed + 1) != std::string_view::npos)
    return false;
  int groups = 0, filled = 0, longest = 0;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = std::min(text.find(':', start), text.size());
    int length = static_cast<int>(end - start);
    ++groups;
    if (length > 0) ++filled;
    longest = std::max(longest, length);
    start = end + 1;
  }
  if (compressed == std::string_view::npos && groups != 8) return false;
  return filled >= 2 && longest >= 3;
}

class Scanner {
 public:
  Scanner(std::string_view text, HygieneText kind, bool filtered = true)
      : text_(text), kind_(kind), filtered_(filtered) {}

  std::vector<HygieneFinding> run() {
    scheduler();
    users();
    registries();
    hosts();
    addresses();
    paths();
    std::sort(found_.begin(), found_.end(),
              [](const HygieneFinding& a, const HygieneFinding& b) { return a.begin < b.begin; });
    return std::move(found_);
  }

 private:
  // Every match of `source` in `text` (matches, or matches_unfiltered for the comparing test).
  std::vector<std::pair<std::size_t, std::size_t>> find(const char* source,
                                                        std::string_view text) const {
    return filtered_ ? matches(source, text) : matches_unfiltered(source, text);
  }

  void scheduler() {
    const char* where =
        "a variable such as $SLURM_ACCOUNT, or leave it out and pass it to "
        "`openrecipes measure` (--account, --partition)";
    for (auto [b, e] : find(kSchedulerDirective, text_))
      add(HygieneKind::kScheduler, b, e, "an #SBATCH directive (a site's scheduler settings)",
          "no #SBATCH line: `openrecipes measure` writes the job script (--account, --partition)");
    for (auto [b, e] : find(kSchedulerLong, text_))
      if (!upper_case_placeholder(text_.substr(b, e - b)))
        add(HygieneKind::kScheduler, b, e, kSchedulerWhat, where);
    if (kind_ == HygieneText::kCommand || kind_ == HygieneText::kCode) short_options(where);
    for (auto [b, e] : find(kSchedulerVariable, text_))
      if (!upper_case_placeholder(text_.substr(b, e - b)))
        add(HygieneKind::kScheduler, b, e, "a Slurm variable set to a site's name", where);
  }

  // srun/sbatch/salloc's short forms -A, -p, -w, -M, -q: read only among the options that follow
  // the command word, so that `mkdir -p` or `grep -A 3` elsewhere is not one.
  void short_options(const char* where) {
    for (auto [b, e] : find(kSlurmCommand, text_)) {
      enum class Next { kOption, kShortValue, kLongValue } next = Next::kOption;
      for (std::size_t at = skip_blanks(e); at < text_.size(); at = skip_blanks(at)) {
        std::size_t word_end = at;
        while (word_end < text_.size() &&
               !std::isspace(static_cast<unsigned char>(text_[word_end])))
          ++word_end;
        std::string_view word = text_.substr(at, word_end - at);
        if (word.empty()) break;  // a line break ends the command
        if (next == Next::kShortValue && literal_word(word)) {
          add(HygieneKind::kScheduler, at, word_end, kSchedulerWhat, where);
        } else if (next == Next::kOption && word[0] != '-') {
          break;  // the program srun starts: its own options are not srun's
        }
        Next after = Next::kOption;
        if (next == Next::kOption && word.size() >= 2 && word[1] != '-' &&
            std::string_view("ApwMq").find(word[1]) != std::string_view::npos) {
          std::size_t value = word.size() > 2 && word[2] == '=' ? 3 : 2;
          if (word.size() == 2)
            after = Next::kShortValue;
          else if (literal_word(word.substr(value)))
            add(HygieneKind::kScheduler, at + value, word_end, kSchedulerWhat, where);
        } else if (next == Next::kOption && word.size() > 2 && word[1] == '-' &&
                   word.find('=') == std::string_view::npos && !switch_option(word)) {
          after = Next::kLongValue;
        }
        next = after;
        at = word_end;
      }
    }
  }

  // The next word's start: past blanks and backslash-newline continuations.
  std::size_t skip_blanks(std::size_t at) const {
    while (at < text_.size()) {
      if (text_[at] == ' ' || text_[at] == '\t')
        ++at;
      else if (text_[at] == '\\' && at + 1 < text_.size() && text_[at + 1] == '\n')
        at += 2;
      else
        break;
    }
    return at;
  }

  void users() {
    for (const char* pattern : {kUserHome, kUserTilde}) {
      for (auto [b, e] : find(pattern, text_)) {
        // In code, `~name` is Python's bitwise not (`~mask`) unless a path follows.
        bool bitwise_not = kind_ == HygieneText::kCode && text_[b] == '~' &&
                           (e >= text_.size() || text_[e] != '/');
        if (!bitwise_not)
          add(HygieneKind::kUser, b, e, "a user's home folder or name",
              "$HOME or a variable such as $CKPT_DIR");
      }
    }
  }

  void registries() {
    for (const char* pattern : {kImageOption, kImagePull, kImageScheme, kImageReference}) {
      for (auto [b, e] : find(pattern, text_)) {
        std::string host = registry_host(text_.substr(b, e - b));
        if (public_registry(host)) continue;
        add(HygieneKind::kRegistry, b, e,
            "a container image on the registry " + host + ", which is not public",
            "a public image (nvcr.io/nvidia/..., docker.io, ghcr.io) or a variable such as "
            "$IMAGE");
      }
    }
  }

  void hosts() {
    for (const char* pattern : {kMasterAddress, kMasterOption}) {
      for (auto [b, e] : find(pattern, text_)) {
        std::string_view value = text_.substr(b, e - b);
        if (loopback(value) || upper_case_placeholder(value) ||
            value.substr(0, 10) == "localhost:" ||
            find(kIpv4, value).size() == 1)  // an address: addresses() reports it
          continue;
        add(HygieneKind::kHost, b, e, "a host name the rendezvous is pinned to",
            "a variable such as $MASTER_ADDR (set by the launcher), or localhost");
      }
    }
    for (auto [b, e] : find(kInternalHost, text_)) {
      std::size_t next = e;
      while (next < text_.size() && text_[next] == ' ') ++next;
      if (next < text_.size() && (text_[next] == '(' || text_[next] == '=')) continue;  // code
      add(HygieneKind::kHost, b, e, "an internal host name",
          "a variable such as $MASTER_ADDR, or leave the host out");
    }
  }

  void addresses() {
    const char* where = "a variable such as $MASTER_ADDR, or leave the address out";
    for (auto [b, e] : find(kIpv4, text_)) {
      if (loopback(text_.substr(b, e - b))) continue;
      if (kind_ == HygieneText::kVersions && !address_context(b, e)) continue;
      add(HygieneKind::kAddress, b, e, "an IP address", where);
    }
    for (auto [b, e] : find(kIpv6, text_)) {
      if (ipv6_address(text_.substr(b, e - b)))
        add(HygieneKind::kAddress, b, e, "an IPv6 address", where);
    }
  }

  bool address_context(std::size_t b, std::size_t e) const {
    auto after = [&](char c) {
      return e + 1 < text_.size() && text_[e] == c &&
             std::isdigit(static_cast<unsigned char>(text_[e + 1]));
    };
    char before = b > 0 ? text_[b - 1] : ' ';
    return after(':') || after('/') || before == '/' || before == '@' || before == '=';
  }

  void paths() {
    for (auto [b, e] : find(kPath, text_)) {
      if (allowed_path(text_.substr(b, e - b))) continue;
      add(HygieneKind::kPath, b, e, "an absolute path outside the system folders",
          "a variable such as $CKPT_DIR or $DATA_DIR (\"$CKPT_DIR/...\")");
    }
  }

  void add(HygieneKind kind, std::size_t b, std::size_t e, std::string what,
           std::string replace_with) {
    for (const HygieneFinding& f : found_)
      if (b < f.end && f.begin < e) return;  // claimed already
    found_.push_back({kind, b, e, std::move(what), std::move(replace_with)});
  }

  std::string_view text_;
  HygieneText kind_;
  bool filtered_;  ///< skip the patterns whose literals `text_` lacks (may_match)
  std::vector<HygieneFinding> found_;
};

}  // namespace

std::string_view hygiene_rule_id(HygieneKind kind) {
  switch (kind) {
    case HygieneKind::kPath:
      return "hygiene.path";
    case HygieneKind::kRegistry:
      return "hygiene.registry";
    case HygieneKind::kScheduler:
      return "hygiene.scheduler";
    case HygieneKind::kUser:
      return "hygiene.user";
    case HygieneKind::kAddress:
      return "hygiene.address";
    case HygieneKind::kHost:
      return "hygiene.host";
  }
  throw BugError("unknown hygiene kind");
}

std::vector<HygieneFinding> scan_hygiene(std::string_view text, HygieneText kind) {
  return Scanner(text, kind).run();
}

std::vector<HygieneFinding> scan_hygiene_every_pattern(std::string_view text, HygieneText kind) {
  return Scanner(text, kind, false).run();
}

std::vector<HygieneFinding> scan_hygiene_env(std::string_view name, std::string_view value) {
  std::vector<HygieneFinding> found = scan_hygiene(value, HygieneText::kCommand);
  if (!literal_word(value) || !found.empty()) return found;
  for (std::string_view prefix : {"SLURM_", "SBATCH_", "SALLOC_", "SRUN_"}) {
    if (name.substr(0, prefix.size()) == prefix) {
      return {{HygieneKind::kScheduler, 0, value.size(), "a Slurm variable set to a site's name",
               "a variable such as $SLURM_ACCOUNT, or leave it out of env"}};
    }
  }
  if (name == "MASTER_ADDR" && !loopback(value) && value.substr(0, 10) != "localhost:") {
    return {{HygieneKind::kHost, 0, value.size(), "a host name the rendezvous is pinned to",
             "a variable such as $MASTER_ADDR (set by the launcher), or localhost"}};
  }
  return found;
}

}  // namespace openrecipes
