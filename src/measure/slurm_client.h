// Slurm's own commands, run with argument vectors and read from their parsable output: submit
// (`sbatch --parsable`), a job's state and times (`scontrol show job -o`, or `sacct -X -n -P`
// where slurmctld has forgotten the job or accounting is on), cancel (`scancel`) and the cluster
// name (`scontrol show config`). The parsers are pure and take the commands' real output.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace openrecipes {

/// One job as Slurm reports it. Times are seconds since the epoch; nullopt while Slurm prints
/// `Unknown`/`None` (not started, not ended).
struct JobRecord {
  std::int64_t job_id = 0;
  std::string state;      ///< first word of the state: PENDING, RUNNING, COMPLETED, FAILED, ...
  std::string exit_code;  ///< `N:S`: the batch script's exit status and the signal
  std::optional<double> submit_time_s;  ///< when sbatch submitted it
  std::optional<double> start_time_s;   ///< admission: when Slurm gave it its nodes and started it
  std::optional<double> end_time_s;     ///< when it finished
  std::string partition, account, node_list;
  std::string source;  ///< "scontrol" or "sacct": which command gave it
};

/// True for a state a job does not leave (COMPLETED, FAILED, TIMEOUT, PREEMPTED, CANCELLED,
/// NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE).
bool is_final_job_state(std::string_view state);

/// Seconds since the epoch of Slurm's `YYYY-MM-DDTHH:MM:SS`, read in this machine's local time
/// zone (the one Slurm's client commands print in); nullopt for `Unknown`, `None`, empty or
/// malformed text.
std::optional<double> parse_slurm_time(std::string_view text);

/// The job id of `sbatch --parsable` output (`ID` or `ID;CLUSTER`), with the cluster in
/// `cluster` when printed. nullopt when the output holds no id.
std::optional<std::int64_t> parse_sbatch_parsable(std::string_view output,
                                                  std::string* cluster = nullptr);

/// The job of `scontrol show job -o ID` output (one line of `Key=Value` words). nullopt when
/// it names no JobId.
std::optional<JobRecord> parse_scontrol_job(std::string_view output);

/// The job of `sacct -j ID -X -n -P -o
/// JobID,State,Submit,Start,End,ExitCode,Partition,Account,NodeList` output: the line whose JobID
/// is `job_id`; nullopt when there is none.
std::optional<JobRecord> parse_sacct_job(std::string_view output, std::int64_t job_id);

/// The value of `ClusterName` in `scontrol show config` output, or empty.
std::string parse_cluster_name(std::string_view scontrol_config);

/// What `openrecipes measure` asks of Slurm. SlurmClient runs the real commands; a test passes a
/// fake (measure_run_test.cc) to run the workflow without a cluster.
class SlurmApi {
 public:
  virtual ~SlurmApi() = default;
  /// True when Slurm's commands can be run here (sbatch on PATH).
  virtual bool available() const = 0;
  /// Submits the script at `script_path`; returns the job id, and the cluster in `cluster` when
  /// sbatch names it. Throws IoError (base/error.h) with sbatch's own message when it cannot run,
  /// refuses, or prints no job id.
  virtual std::int64_t submit(const std::string& script_path, std::string* cluster) const = 0;
  /// The job's record while it runs; nullopt when Slurm does not know it.
  virtual std::optional<JobRecord> job(std::int64_t job_id) const = 0;
  /// The job's record once it has ended (accounting's where it has the times); nullopt when none.
  virtual std::optional<JobRecord> finished_job(std::int64_t job_id) const = 0;
  /// Cancels the job; returns the cancel command's error text, empty on success.
  virtual std::string cancel(std::int64_t job_id) const = 0;
  /// The cluster's name, or empty when Slurm cannot say.
  virtual std::string cluster_name() const = 0;
};

/// The Slurm commands on PATH (SLURM_CONF, when set, is theirs to read).
class SlurmClient : public SlurmApi {
 public:
  /// True when `sbatch` is on PATH.
  bool available() const override;
  /// `sbatch --parsable`. Throws IoError (path "sbatch") with sbatch's own message when it cannot
  /// run or refuses, or when it prints no job id.
  std::int64_t submit(const std::string& script_path, std::string* cluster) const override;
  /// The job from scontrol, else from sacct; nullopt when neither knows it.
  std::optional<JobRecord> job(std::int64_t job_id) const override;
  /// The job from sacct when accounting has its end; else from scontrol; else nullopt.
  std::optional<JobRecord> finished_job(std::int64_t job_id) const override;
  /// `scancel`; returns its error text, empty on success.
  std::string cancel(std::int64_t job_id) const override;
  /// ClusterName of `scontrol show config`, or empty.
  std::string cluster_name() const override;

 private:
  std::optional<JobRecord> from_scontrol(std::int64_t job_id) const;
  std::optional<JobRecord> from_sacct(std::int64_t job_id) const;
};

}  // namespace openrecipes
