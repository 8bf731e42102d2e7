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
#include <map>
#include <sstream>
#include <vector>

#include "base/error.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

// The fields each event must have, and their JSON types: `s` string, `i` integer, `n` number,
// `o` an object of strings. A
// log edited by hand or written by another program is refused at the line, never half-read.
const std::map<std::string, std::vector<std::pair<const char*, char>>>& event_fields() {
  static const std::map<std::string, std::vector<std::pair<const char*, char>>> fields = {
      {"start", {{"model", 's'}, {"gpu", 's'}, {"gpus", 'i'}, {"reference", 's'}}},
      {"resume", {}},
      {"calibration", {}},
      {"note", {}},
      {"proposal",
       {{"run", 'i'},
        {"layout", 's'},
        {"recompute", 's'},
        {"label", 's'},
        {"predicted_tokens_per_s_per_gpu", 'n'},
        {"band_used", 'n'}}},
      {"submitted", {{"run", 'i'}, {"job", 'i'}, {"dir", 's'}}},
      {"measured",
       {{"run", 'i'},
        {"job", 'i'},
        {"layout", 's'},
        {"tokens_per_s_per_gpu", 'n'},
        {"gpu_hours", 'n'},
        {"predicted_tokens_per_s_per_gpu", 'n'},
        {"log", 's'},
        {"stack", 'o'}}},
      {"failed",
       {{"run", 'i'},
        {"job", 'i'},
        {"layout", 's'},
        {"failure", 's'},
        {"detail", 's'},
        {"gpu_hours", 'n'}}},
      {"cancelled", {{"run", 'i'}, {"job", 'i'}}},
      {"stop", {{"reason", 's'}, {"detail", 's'}}},
      {"reference_submitted", {{"job", 'i'}, {"dir", 's'}}},
      {"reference_cancelled", {{"job", 'i'}}},
      {"reference_measured", {{"job", 'i'}, {"log", 's'}}},
      {"reference_failed", {{"job", 'i'}}},
      {"recipe", {{"path", 's'}, {"status", 's'}, {"summary", 's'}}}};
  return fields;
}

// Why `event` is not a well-formed event ("" when it is): the missing or mistyped field, or a run
// number out of range.
std::string event_problem(const nlohmann::ordered_json& event) {
  if (!event.is_object() || !event.contains("event") || !event["event"].is_string())
    return "not a JSON object with an \"event\"";
  auto kind = event_fields().find(event["event"].get<std::string>());
  if (kind == event_fields().end()) return "an event openrecipes tune does not write";
  for (const auto& [key, type] : kind->second) {
    auto it = event.find(key);
    bool ok = it != event.end() && (type == 's'   ? it->is_string()
                                    : type == 'i' ? it->is_number_integer()
                                    : type == 'o' ? it->is_object()
                                                  : it->is_number());
    if (ok && type == 'o')  // a stack: its values are the recipe's strings
      for (const auto& [name, value] : it->items()) ok = ok && value.is_string();
    if (!ok) return fmt::format("its field \"{}\" is missing or of the wrong type", key);
  }
  if (event.contains("run") &&
      (!event["run"].is_number_integer() || event["run"].get<std::int64_t>() < 1 ||
       event["run"].get<std::int64_t>() > kMaxLoggedRuns))
    return fmt::format("its run is not a number from 1 to {}", kMaxLoggedRuns);
  return "";
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

const LoggedRun* TuneLogState::best_measured() const {
  const LoggedRun* best = nullptr;
  for (const LoggedRun& run : runs) {
    if (run.outcome != "measured") continue;
    if (!best || run.result.value("tokens_per_s_per_gpu", 0.0) >
                     best->result.value("tokens_per_s_per_gpu", 0.0))
      best = &run;
  }
  return best;
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
  if (kind == "reference_cancelled") {  // Ctrl-C: the arm runs again on resume
    state_.reference_job = 0;
    state_.reference_dir.clear();
  }
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
  if (!fs::is_regular_file(log.path_)) {
    problems.push_back({log.path_,
                        {},
                        "",
                        "tune.state",
                        "not a regular file",
                        "the log openrecipes tune writes",
                        "a folder, FIFO, socket or device"});
    return std::nullopt;
  }
  std::ifstream in(log.path_, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  std::size_t at = 0;
  int line = 0;
  while (at < text.size()) {
    ++line;
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) {
      // A torn last line (the process died writing it) is cut off, so the next event starts a
      // line of its own.
      std::error_code cut;
      fs::resize_file(log.path_, at, cut);
      if (cut) {
        problems.push_back({log.path_,
                            {line, 1},
                            "",
                            "tune.state",
                            "cannot cut off the half-written last line",
                            "a writable log",
                            cut.message()});
        return std::nullopt;
      }
      break;
    }
    std::string_view content(text.data() + at, end - at);
    at = end + 1;
    if (content.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    nlohmann::ordered_json event =
        nlohmann::ordered_json::parse(content.begin(), content.end(), nullptr, false);
    std::string why = event.is_discarded() ? "not JSON" : event_problem(event);
    if (!why.empty()) {
      problems.push_back({log.path_,
                          {line, 1},
                          "event",
                          "tune.state",
                          "not an event of openrecipes tune: " + why,
                          "an event as docs/tune.md lists them",
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
