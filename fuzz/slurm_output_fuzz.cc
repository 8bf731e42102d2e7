// The readers of Slurm's command output (measure/slurm_client.h: sbatch --parsable, scontrol
// show job -o, sacct -P, scontrol show config, Slurm's times) and of a growing job log
// (measure/job_follow.h: the latest step) on any bytes. The sacct job id looked for is the one
// sbatch's reader finds in the same text, else 1.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "measure/job_follow.h"
#include "measure/slurm_client.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  std::string_view text = fuzz::as_text(data, size);
  std::string cluster;
  std::optional<std::int64_t> id = parse_sbatch_parsable(text, &cluster);
  std::optional<JobRecord> scontrol = parse_scontrol_job(text);
  if (scontrol) (void)is_final_job_state(scontrol->state);
  std::optional<JobRecord> sacct = parse_sacct_job(text, id.value_or(1));
  if (sacct) {
    fuzz::check(sacct->job_id == id.value_or(1), "parse_sacct_job: the job asked for");
    (void)is_final_job_state(sacct->state);
  }
  (void)parse_slurm_time(text);
  (void)parse_cluster_name(text);
  (void)latest_step_in_log(text);
  return 0;
}
