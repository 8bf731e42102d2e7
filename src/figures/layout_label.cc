#include "figures/layout_label.h"

#include <fmt/format.h>

#include "base/ascii.h"

namespace openrecipes {
namespace {

std::string label_without_dp(const Layout& l) {
  std::string label = fmt::format("TP{} PP{}", l.tp, l.pp);
  if (l.vpp > 1) label += fmt::format(" VPP{}", l.vpp);
  if (l.cp > 1) label += fmt::format(" CP{}", l.cp);
  if (l.ep > 1) label += fmt::format(" EP{}", l.ep);
  if (l.etp > 1) label += fmt::format(" ETP{}", l.etp);
  return label;
}

}  // namespace

std::string layout_label(const Layout& layout) {
  return label_without_dp(layout) + fmt::format(" DP{}", layout.dp);
}

std::string layout_slug(const Layout& layout) {
  std::string slug;
  for (char c : label_without_dp(layout)) {
    slug += c == ' ' ? '-' : ascii_lower(c);
  }
  return slug;
}

}  // namespace openrecipes
