#include "plan/collective_time.h"

#include <algorithm>

namespace openrecipes {

Fabric fabric_of(const ClusterShape& cluster, double efficiency, double latency_s) {
  Fabric f;
  f.nvlink_bytes_per_s = cluster.gpu.nvlink_gb_per_s * 1e9 * efficiency;
  f.network_bytes_per_s = cluster.gpu.network_gb_per_s * 1e9 * efficiency;
  int node = cluster.per_node > 0 ? cluster.per_node : 8;
  f.domain = std::max(cluster.gpu.nvlink_domain, node);
  f.latency_s = latency_s;
  return f;
}

bool within_domain(const Fabric& fabric, int span) { return span <= fabric.domain; }

double ring_collective_s(double bytes, int group, int span, const Fabric& fabric) {
  if (group <= 1) return 0;
  double bw = within_domain(fabric, span) ? fabric.nvlink_bytes_per_s : fabric.network_bytes_per_s;
  if (bw <= 0) return 0;
  return fabric.latency_s + (group - 1.0) / group * bytes / bw;
}

double all_to_all_s(double bytes, int group, int span, const Fabric& fabric, double network_scale) {
  if (group <= 1) return 0;
  double leaving = (group - 1.0) / group * bytes;
  if (within_domain(fabric, span) || fabric.network_bytes_per_s <= 0)
    return fabric.nvlink_bytes_per_s > 0 ? fabric.latency_s + leaving / fabric.nvlink_bytes_per_s
                                         : 0;
  // The group's ranks are spread evenly over span / domain domains; a rank's peers in its own
  // domain are the group's share that lives there.
  double domains = static_cast<double>(span) / fabric.domain;
  double peers_inside = group / domains - 1;
  double inside = bytes * std::max(0.0, peers_inside) / group;
  double outside = leaving - inside;
  double nvlink_s = fabric.nvlink_bytes_per_s > 0 ? inside / fabric.nvlink_bytes_per_s : 0;
  return fabric.latency_s +
         std::max(nvlink_s, network_scale * outside / fabric.network_bytes_per_s);
}

double deepep_network_share(int experts, int experts_per_token, double domains) {
  const double k = experts_per_token;
  if (domains <= 1 || experts <= 0 || k <= 0) return 1;
  const double e = experts;
  const double per_domain = e / domains;
  double missed = 1;  // one remote domain holds none of the k experts
  for (int i = 0; i < experts_per_token; ++i) missed *= std::max(0.0, e - per_domain - i) / (e - i);
  const double remote_domains_reached = (domains - 1) * (1 - missed);
  return remote_domains_reached / (k * (1 - 1 / domains));
}

double point_to_point_s(double bytes, int distance, const Fabric& fabric) {
  double bw =
      within_domain(fabric, distance + 1) ? fabric.nvlink_bytes_per_s : fabric.network_bytes_per_s;
  return bw > 0 ? fabric.latency_s + bytes / bw : 0;
}

}  // namespace openrecipes
