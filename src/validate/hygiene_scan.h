// Finding in a recipe's texts what the submission guide (README.md "Submitting a recipe",
// templates/submit.mustache) asks submitters to leave out: internal paths, image registry
// addresses, account or cluster names, and with them user names, IP addresses and internal host
// names. Pure: text in, findings with byte offsets out; hygiene_rules.cc turns them into problems.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace openrecipes {

/// The kind of a finding; each is its own rule id (hygiene_rule_id).
enum class HygieneKind { kPath, kRegistry, kScheduler, kUser, kAddress, kHost };

/// What a text is, which decides a few detectors:
/// - kCommand: `run` and `env` values (shell); short Slurm options count on srun/sbatch/salloc.
/// - kProse: `notes`.
/// - kVersions: `stack` values, where four-part numbers are versions (cuDNN 9.1.0.70), so an
///   IPv4 address counts only in an address context (`:port`, `/prefix`, after `//`, `@`, `=`).
/// - kCode: a patch file's contents; shell rules as in kCommand.
enum class HygieneText { kCommand, kProse, kVersions, kCode };

/// One thing to leave out, at bytes [begin, end) of the scanned text.
struct HygieneFinding {
  HygieneKind kind = HygieneKind::kPath;
  std::size_t begin = 0;
  std::size_t end = 0;
  std::string what;          ///< what it is, for the message ("an absolute path ...")
  std::string replace_with;  ///< what to write instead ("a variable such as $CKPT_DIR")
};

/// The rule id of a kind: hygiene.path, hygiene.registry, hygiene.scheduler, hygiene.user,
/// hygiene.address, hygiene.host (listed in schema/recipe.schema.yaml, x-cross-field-rules).
std::string_view hygiene_rule_id(HygieneKind kind);

/// Every finding in `text`, in text order, no two overlapping (a span claimed by one kind is not
/// reported again by another: `/home/jdoe` is a user folder, not also a path). Allowed and never
/// reported: anything behind a variable (`$CKPT/x`, `${HF_CKPT}`, `--account $ACCOUNT`) or a
/// `<placeholder>` (an upper-case ACCOUNT, too, for scheduler values); the system folders /dev,
/// /proc, /sys, /tmp, /var/tmp, /run, /usr, /bin, /sbin, /lib, /lib64 and /etc (the same on every
/// Linux machine, so they name nothing of a site); images on public registries (docker.io, nvcr.io,
/// ghcr.io, quay.io, public.ecr.aws, mcr.microsoft.com, registry.k8s.io) or with no registry host
/// (Docker Hub); loopback and unspecified addresses (127.0.0.0/8, 0.0.0.0, ::1, ::) and localhost.
std::vector<HygieneFinding> scan_hygiene(std::string_view text, HygieneText kind);

/// scan_hygiene with every pattern run on the whole text, without first skipping those whose
/// literals the text lacks: the same findings, more slowly. For the test that shows the two agree.
std::vector<HygieneFinding> scan_hygiene_every_pattern(std::string_view text, HygieneText kind);

/// Findings for one `env` entry: its value scanned as a command, plus the entry itself when a
/// Slurm variable (SLURM_*, SBATCH_*, SALLOC_*, SRUN_*) or MASTER_ADDR is set to a literal name.
/// Offsets are into `value`.
std::vector<HygieneFinding> scan_hygiene_env(std::string_view name, std::string_view value);

}  // namespace openrecipes
