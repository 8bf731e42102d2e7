// The files of a built site, and how they reach disk: atomically, and checkable against what is
// there.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace openrecipes {

/// Every file of a site: path relative to the site folder ('/'-separated) -> exact bytes.
using SiteFiles = std::map<std::string, std::string>;

/// The file every built site holds, so that a build never replaces a folder it did not write.
inline constexpr const char* kSiteMarker = ".openrecipes-site";

/// The tag in the name of the temporary folder a build writes beside `out`:
/// `.<out's name>.new-<PID>-<random hex>` (the old site waits there, too, between the swap and its
/// move to the spare), so that a later build can tell a killed build's folder
/// (remove_stale_temporaries).
inline constexpr const char* kSiteStagingTag = "new";

/// The tag of the spare beside `out`: `.<out's name>.spare`, the site the last build replaced,
/// kept so that the next build updates it (folders and unchanged files kept, most files hard
/// links shared with the site) instead of creating every file and folder again.
inline constexpr const char* kSiteSpareTag = "spare";

/// Writes `files` (plus the marker) into a temporary folder beside `out`, then swaps it in with
/// one atomic rename (renameat2 RENAME_EXCHANGE when `out` exists), so that readers see the old
/// site or the new one, never a mix. The temporary folder is the spare (kSiteSpareTag) when there
/// is one, updated to hold exactly `files`, else a new folder; a file whose bytes the current site
/// holds already is a hard link to it. The replaced site becomes the next spare (or is removed when
/// a concurrent build left one). No file of either site is written in place. On any failure the
/// old site is left as it was and the temporary folder is removed. Refuses an existing, non-empty
/// `out` that lacks the marker, and an `out` that is a symbolic link. Throws IoError saying what
/// went wrong (also when the old site could not be removed).
void write_site_atomically(const std::filesystem::path& out, const SiteFiles& files);

/// One way a site folder differs from what a build would write.
struct SiteDifference {
  enum class Kind { kStale, kMissing, kExtra, kUnreadable };
  Kind kind;
  std::string path;    ///< relative to the site folder ("" for the folder itself)
  std::string reason;  ///< for kUnreadable, and what a non-regular file is ("a FIFO", ...)
};

/// Compares the folder `out` with `files` (the marker counts as expected), sorted by path. A
/// folder or file it cannot read is reported as kUnreadable (and then nothing is called missing).
/// Anything but folders and regular files — symbolic links, FIFOs, sockets, devices — is a
/// difference (kStale where a site file belongs, kExtra elsewhere) and is never opened, so a FIFO
/// cannot block the check.
std::vector<SiteDifference> compare_site(const std::filesystem::path& out, const SiteFiles& files);

}  // namespace openrecipes
