// Time of the collectives a layout runs: a latency per call plus bytes over the link the group
// spans — NVLink inside the GPU's NVLink domain, the network across domains (the alpha-beta model
// of Thakur, Rabenseifner and Gropp 2005, "Optimization of Collective Communication Operations in
// MPICH", IJHPCA 19(1)).
#pragma once

#include "layout/plan_inputs.h"

namespace openrecipes {

/// The links one GPU has, as achieved bandwidth (bytes/s, one direction) and latency.
struct Fabric {
  double nvlink_bytes_per_s = 0;   ///< inside the NVLink domain
  double network_bytes_per_s = 0;  ///< across domains
  int domain = 8;                  ///< GPUs one NVLink domain joins
  double latency_s = 0;            ///< fixed cost of one collective call
};

/// The fabric of `cluster`: the GPU's NVLink and network bandwidths (gpus.yaml) times
/// `efficiency`, its NVLink domain (nvlink_domain, else the node size), `latency_s` per call.
Fabric fabric_of(const ClusterShape& cluster, double efficiency, double latency_s);

/// True when `span` consecutive ranks fit in one NVLink domain.
bool within_domain(const Fabric& fabric, int span);

/// Seconds of a ring all-gather or reduce-scatter of a `bytes` buffer (the full, gathered size)
/// over `group` ranks whose ranks span `span` consecutive GPUs: each rank sends (g - 1) / g of
/// the buffer over NVLink when the span fits a domain, else over the network; plus the latency.
/// 0 for a group of one.
double ring_collective_s(double bytes, int group, int span, const Fabric& fabric);

/// Seconds of an all-to-all where each rank sends `bytes` in all, spread evenly over the `group`
/// ranks spanning `span` GPUs: the (g - 1) / g that leave the GPU split into the peers inside the
/// rank's NVLink domain (over NVLink) and outside it (over the network), the two concurrent; plus
/// the latency. `network_scale` multiplies the network share's time only (DeepEP's internode
/// kernels send a token once per destination node and forward it over NVLink there; DeepSeek-AI,
/// github.com/deepseek-ai/DeepEP, README "normal kernels"). 0 for a group of one.
double all_to_all_s(double bytes, int group, int span, const Fabric& fabric,
                    double network_scale = 1.0);

/// DeepEP's network bytes over the alltoall dispatcher's, for an EP group spanning `domains`
/// NVLink domains that each hold experts / domains of the `experts` routed experts. DeepEP's
/// internode kernels send a token once to each remote domain holding at least one of its
/// `experts_per_token` (k) experts and forward it over NVLink there (github.com/deepseek-ai/DeepEP,
/// README, "normal kernels"); alltoall sends each copy, k (1 - 1 / domains) of them across. With
/// the k experts drawn uniformly without replacement (the published runs force-balance routing), a
/// given remote domain is missed with probability C(E - E / domains, k) / C(E, k). Routing
/// limited to a few nodes (DeepSeek-V3's group-limited routing, arXiv:2412.19437, sec. 2.1.2)
/// reaches fewer domains, so there this is an upper bound. 1 when the group fits one domain.
double deepep_network_share(int experts, int experts_per_token, double domains);

/// Seconds of a point-to-point send of `bytes` to a rank `distance` GPUs away.
double point_to_point_s(double bytes, int distance, const Fabric& fabric);

}  // namespace openrecipes
