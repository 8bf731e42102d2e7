#include "measure/slurm_client.h"

#include <fmt/format.h>

#include <charconv>
#include <ctime>
#include <vector>

#include "base/error.h"
#include "measure/subprocess.h"

namespace openrecipes {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\n' || text.front() == '\r' ||
                           text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() &&
         (text.back() == ' ' || text.back() == '\n' || text.back() == '\r' || text.back() == '\t'))
    text.remove_suffix(1);
  return text;
}

std::optional<std::int64_t> parse_id(std::string_view text) {
  std::int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value <= 0) return std::nullopt;
  return value;
}

std::string first_word(std::string_view text) {
  text = trim(text);
  return std::string(text.substr(0, text.find(' ')));
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t end = text.find(separator, start);
    parts.push_back(
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

// "(null)" and "None" are how Slurm says "not set".
std::string slurm_text(std::string_view value) {
  value = trim(value);
  if (value == "(null)" || value == "None") return "";
  return std::string(value);
}

// The first line of a command's complaint, for a message.
std::string first_line(const ProcessResult& run) {
  std::string text = run.started ? (run.err.empty() ? run.out : run.err) : run.error;
  std::string line(trim(text.substr(0, text.find('\n'))));
  return line.empty() ? fmt::format("exit status {}", run.exit_code) : line;
}

}  // namespace

bool is_final_job_state(std::string_view state) {
  for (std::string_view final_state : {"COMPLETED", "FAILED", "TIMEOUT", "PREEMPTED", "CANCELLED",
                                       "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE"}) {
    if (state == final_state) return true;
  }
  return false;
}

std::optional<double> parse_slurm_time(std::string_view text) {
  text = trim(text);
  if (text.size() != 19 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':')
    return std::nullopt;
  auto field = [&](std::size_t at, std::size_t length) -> std::optional<int> {
    int value = 0;
    auto [end, error] = std::from_chars(text.data() + at, text.data() + at + length, value);
    if (error != std::errc() || end != text.data() + at + length) return std::nullopt;
    return value;
  };
  auto year = field(0, 4), month = field(5, 2), day = field(8, 2), hour = field(11, 2),
       minute = field(14, 2), second = field(17, 2);
  if (!year || !month || !day || !hour || !minute || !second || *month < 1 || *month > 12 ||
      *day < 1 || *day > 31 || *hour > 23 || *minute > 59 || *second > 60)
    return std::nullopt;
  std::tm tm{};
  tm.tm_year = *year - 1900;
  tm.tm_mon = *month - 1;
  tm.tm_mday = *day;
  tm.tm_hour = *hour;
  tm.tm_min = *minute;
  tm.tm_sec = *second;
  tm.tm_isdst = -1;  // local time, daylight saving as it was then
  std::time_t seconds = std::mktime(&tm);
  if (seconds == static_cast<std::time_t>(-1)) return std::nullopt;
  return static_cast<double>(seconds);
}

std::optional<std::int64_t> parse_sbatch_parsable(std::string_view output, std::string* cluster) {
  std::string_view line = trim(output);
  line = line.substr(0, line.find('\n'));
  std::size_t semicolon = line.find(';');
  if (cluster && semicolon != std::string_view::npos)
    *cluster = std::string(trim(line.substr(semicolon + 1)));
  return parse_id(trim(line.substr(0, semicolon)));
}

std::optional<JobRecord> parse_scontrol_job(std::string_view output) {
  JobRecord job;
  bool found = false;
  for (std::string_view word : split(trim(output), ' ')) {
    std::size_t equals = word.find('=');
    if (equals == std::string_view::npos) continue;
    std::string_view key = word.substr(0, equals), value = word.substr(equals + 1);
    if (key == "JobId") {
      auto id = parse_id(value);
      if (!id) return std::nullopt;
      job.job_id = *id;
      found = true;
    } else if (key == "JobState") {
      job.state = std::string(value);
    } else if (key == "ExitCode") {
      job.exit_code = std::string(value);
    } else if (key == "SubmitTime") {
      job.submit_time_s = parse_slurm_time(value);
    } else if (key == "StartTime") {
      job.start_time_s = parse_slurm_time(value);
    } else if (key == "EndTime") {
      job.end_time_s = parse_slurm_time(value);
    } else if (key == "Partition") {
      job.partition = slurm_text(value);
    } else if (key == "Account") {
      job.account = slurm_text(value);
    } else if (key == "NodeList") {
      job.node_list = slurm_text(value);
    }
  }
  if (!found) return std::nullopt;
  // A pending or running job has an EndTime that is only its time limit's end.
  if (!is_final_job_state(job.state)) job.end_time_s.reset();
  job.source = "scontrol";
  return job;
}

std::optional<JobRecord> parse_sacct_job(std::string_view output, std::int64_t job_id) {
  for (std::string_view line : split(output, '\n')) {
    std::vector<std::string_view> fields = split(trim(line), '|');
    if (fields.size() < 6 || parse_id(fields[0]) != job_id) continue;
    JobRecord job;
    job.job_id = job_id;
    job.state = first_word(fields[1]);  // "CANCELLED by 0" -> CANCELLED
    job.submit_time_s = parse_slurm_time(fields[2]);
    job.start_time_s = parse_slurm_time(fields[3]);
    job.end_time_s = parse_slurm_time(fields[4]);
    job.exit_code = std::string(trim(fields[5]));
    if (fields.size() > 6) job.partition = slurm_text(fields[6]);
    if (fields.size() > 7) job.account = slurm_text(fields[7]);
    if (fields.size() > 8) job.node_list = slurm_text(fields[8]);
    if (!is_final_job_state(job.state)) job.end_time_s.reset();
    job.source = "sacct";
    return job;
  }
  return std::nullopt;
}

std::string parse_cluster_name(std::string_view scontrol_config) {
  for (std::string_view line : split(scontrol_config, '\n')) {
    std::size_t equals = line.find('=');
    if (equals == std::string_view::npos || trim(line.substr(0, equals)) != "ClusterName") continue;
    return slurm_text(line.substr(equals + 1));
  }
  return "";
}

bool SlurmClient::available() const { return program_on_path("sbatch"); }

std::int64_t SlurmClient::submit(const std::string& script_path, std::string* cluster) const {
  ProcessResult run = run_process({"sbatch", "--parsable", script_path});
  if (!run.started) throw IoError("sbatch", fmt::format("sbatch could not run: {}", run.error));
  if (run.exit_code != 0)
    throw IoError("sbatch", fmt::format("sbatch refused {}: {}", script_path, first_line(run)));
  auto id = parse_sbatch_parsable(run.out, cluster);
  if (!id)
    throw IoError(
        "sbatch",
        fmt::format("sbatch printed no job id (expected `ID` or `ID;CLUSTER`, found `{}`)",
                    std::string(trim(run.out))));
  return *id;
}

std::optional<JobRecord> SlurmClient::from_scontrol(std::int64_t job_id) const {
  ProcessResult run = run_process({"scontrol", "show", "job", "-o", std::to_string(job_id)});
  if (!run.started || run.exit_code != 0) return std::nullopt;
  return parse_scontrol_job(run.out);
}

std::optional<JobRecord> SlurmClient::from_sacct(std::int64_t job_id) const {
  ProcessResult run =
      run_process({"sacct", "-j", std::to_string(job_id), "-X", "-n", "-P", "-o",
                   "JobID,State,Submit,Start,End,ExitCode,Partition,Account,NodeList"});
  if (!run.started || run.exit_code != 0) return std::nullopt;
  return parse_sacct_job(run.out, job_id);
}

std::optional<JobRecord> SlurmClient::job(std::int64_t job_id) const {
  if (auto job = from_scontrol(job_id)) return job;
  return from_sacct(job_id);
}

std::optional<JobRecord> SlurmClient::finished_job(std::int64_t job_id) const {
  auto accounted = from_sacct(job_id);
  if (accounted && accounted->start_time_s && accounted->end_time_s) return accounted;
  if (auto job = from_scontrol(job_id)) return job;
  return accounted;
}

std::string SlurmClient::cancel(std::int64_t job_id) const {
  ProcessResult run = run_process({"scancel", std::to_string(job_id)});
  return run.started && run.exit_code == 0 ? "" : first_line(run);
}

std::string SlurmClient::cluster_name() const {
  ProcessResult run = run_process({"scontrol", "show", "config"});
  return run.started && run.exit_code == 0 ? parse_cluster_name(run.out) : "";
}

}  // namespace openrecipes
