#include "tune/tune_log.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "base/error.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

const std::set<std::string>& known_events() {
  static const std::set<std::string> events = {"start",
                                               "resume",
                                               "calibration",
                                               "proposal",
                                               "submitted",
                                               "measured",
                                               "failed",
                                               "cancelled",
                                               "stop",
                                               "reference_submitted",
                                               "reference_measured",
                                               "reference_failed",
                                               "recipe",
                                               "note"};
  return events;
}

LoggedRun* run_of(TuneLogState& state, const nlohmann::ordered_json& event) {
  if (!event.contains("run") || !event["run"].is_number_integer()) return nullptr;
  int number = event["run"].get<int>();
  if (number < 1) return nullptr;
  while (static_cast<int>(state.runs.size()) < number) {
    state.runs.emplace_back();
    state.runs.back().run = static_cast<int>(state.runs.size());
  }
  return &state.runs[number - 1];
}

}  // namespace

std::vector<const LoggedRun*> TuneLogState::in_flight() const {
  std::vector<const LoggedRun*> out;
  for (const LoggedRun& run : runs)
    if (run.job != 0 && run.outcome.empty()) out.push_back(&run);
  return out;
}

std::string utc_time_now() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

void TuneLog::apply(const nlohmann::ordered_json& event) {
  ++events_;
  const std::string kind = event["event"].get<std::string>();
  if (kind == "start" && !state_.start) state_.start = event;
  if (kind == "stop") state_.stop = event;
  // A session resumed after Ctrl-C searches on: only its jobs were stopped, not the search.
  if (kind == "resume" && state_.stop && state_.stop->value("reason", "") == "interrupted")
    state_.stop.reset();
  if (kind == "recipe") state_.recipe = event;
  if (kind == "reference_submitted") {
    state_.reference_job = event.value("job", std::int64_t{0});
    state_.reference_dir = event.value("dir", std::string());
    state_.reference_result.reset();
  }
  if (kind == "reference_measured" || kind == "reference_failed") state_.reference_result = event;
  LoggedRun* run = run_of(state_, event);
  if (!run) return;
  if (kind == "proposal") run->proposal = event;
  if (kind == "submitted") {
    run->job = event.value("job", std::int64_t{0});
    run->dir = event.value("dir", std::string());
  }
  if (kind == "measured" || kind == "failed" || kind == "cancelled") {
    run->outcome = kind;
    run->result = event;
  }
}

std::optional<TuneLog> TuneLog::open(const std::string& state_dir, Problems& problems) {
  TuneLog log;
  log.dir_ = state_dir;
  log.path_ = (fs::path(state_dir) / "tune.jsonl").string();
  std::error_code ec;
  fs::create_directories(state_dir, ec);
  if (ec || !fs::is_directory(state_dir)) {
    problems.push_back({state_dir,
                        {},
                        "--state",
                        "tune.state",
                        "cannot make the state folder",
                        "a folder that can be written",
                        ec ? ec.message() : "not a folder"});
    return std::nullopt;
  }
  std::string lock_path = (fs::path(state_dir) / "tune.lock").string();
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 || ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    std::string why = fd < 0 ? std::strerror(errno) : "another openrecipes tune holds its lock";
    if (fd >= 0) ::close(fd);
    problems.push_back({state_dir,
                        {},
                        "--state",
                        "tune.state",
                        "the state folder is in use or cannot be locked",
                        "a folder no other tune is running in",
                        why});
    return std::nullopt;
  }
  log.lock_ = std::shared_ptr<int>(new int(fd), [](int* held) {
    ::close(*held);
    delete held;
  });
  if (!fs::exists(log.path_)) return log;
  std::ifstream in(log.path_, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  std::size_t at = 0;
  int line = 0;
  while (at < text.size()) {
    ++line;
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) break;  // torn last line: the process died writing it
    std::string_view content(text.data() + at, end - at);
    at = end + 1;
    if (content.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    nlohmann::ordered_json event =
        nlohmann::ordered_json::parse(content.begin(), content.end(), nullptr, false);
    if (event.is_discarded() || !event.is_object() || !event.contains("event") ||
        !event["event"].is_string() || !known_events().count(event["event"].get<std::string>())) {
      problems.push_back({log.path_,
                          {line, 1},
                          "event",
                          "tune.state",
                          "not an event of openrecipes tune",
                          "a JSON object with a known \"event\"",
                          std::string(content.substr(0, 80))});
      return std::nullopt;
    }
    log.apply(event);
  }
  return log;
}

void TuneLog::append(nlohmann::ordered_json event) {
  event["time"] = utc_time_now();
  std::string line = event.dump() + "\n";
  int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw IoError(path_, fmt::format("cannot open {}: {}", path_, std::strerror(errno)));
  std::size_t written = 0;
  while (written < line.size()) {
    ssize_t n = ::write(fd, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int error = errno;
      ::close(fd);
      throw IoError(path_, fmt::format("cannot write {}: {}", path_, std::strerror(error)));
    }
    written += static_cast<std::size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  apply(event);
}

}  // namespace openrecipes
