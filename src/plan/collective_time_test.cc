#include "plan/collective_time.h"

#include <gtest/gtest.h>

namespace openrecipes {
namespace {

Fabric fabric(int domain = 8) {
  Fabric f;
  f.nvlink_bytes_per_s = 400e9;
  f.network_bytes_per_s = 50e9;
  f.domain = domain;
  f.latency_s = 10e-6;
  return f;
}

TEST(CollectiveTime, RingInsideAndAcrossTheNvlinkDomain) {
  // 8 ranks in one node: 7/8 of 1 GB over 400 GB/s, plus the latency.
  EXPECT_NEAR(ring_collective_s(1e9, 8, 8, fabric()), 10e-6 + 0.875 * 1e9 / 400e9, 1e-15);
  // 16 ranks spanning two nodes: the ring crosses the network.
  EXPECT_NEAR(ring_collective_s(1e9, 16, 16, fabric()), 10e-6 + 15.0 / 16 * 1e9 / 50e9, 1e-15);
  // An NVL72 domain keeps 16 ranks on NVLink.
  EXPECT_NEAR(ring_collective_s(1e9, 16, 16, fabric(72)), 10e-6 + 15.0 / 16 * 1e9 / 400e9, 1e-15);
  EXPECT_EQ(ring_collective_s(1e9, 1, 1, fabric()), 0);
}

TEST(CollectiveTime, AllToAllSplitsPeersInsideAndOutsideTheDomain) {
  // 16 ranks over two 8-GPU domains, 1.6 GB sent per rank, 0.1 GB to each rank: 7 peers inside
  // (0.7 GB over NVLink), 8 outside (0.8 GB over the network); the slower side sets the time.
  double t = all_to_all_s(1.6e9, 16, 16, fabric());
  EXPECT_NEAR(t, 10e-6 + std::max(0.7e9 / 400e9, 0.8e9 / 50e9), 1e-12);
  // Inside one domain: 15/16 of it over NVLink.
  EXPECT_NEAR(all_to_all_s(1.6e9, 16, 16, fabric(72)), 10e-6 + 1.5e9 / 400e9, 1e-12);
  // EP 8 inside a node.
  EXPECT_NEAR(all_to_all_s(0.8e9, 8, 8, fabric()), 10e-6 + 0.7e9 / 400e9, 1e-12);
}

TEST(CollectiveTime, NetworkScaleScalesOnlyTheNetworkShare) {
  // The 16-rank case above at half the network time: 0.8 GB / 50 GB/s x 0.5 = 8 ms, still above
  // NVLink's 1.75 ms; at 0.1 the network's 1.6 ms falls under NVLink's share, which then sets it.
  EXPECT_NEAR(all_to_all_s(1.6e9, 16, 16, fabric(), 0.5), 10e-6 + 0.5 * 0.8e9 / 50e9, 1e-12);
  EXPECT_NEAR(all_to_all_s(1.6e9, 16, 16, fabric(), 0.1), 10e-6 + 0.7e9 / 400e9, 1e-12);
  // Inside one domain nothing crosses the network, so the scale changes nothing.
  EXPECT_DOUBLE_EQ(all_to_all_s(0.8e9, 8, 8, fabric(), 0.5), all_to_all_s(0.8e9, 8, 8, fabric()));
}

TEST(CollectiveTime, DeepEpSendsOneCopyPerRemoteDomainReached) {
  // gpt-oss-20b's 32 experts, top 4, over 2 domains of 16: a token misses the other domain with
  // probability C(16, 4) / C(32, 4) = 1,820 / 35,960; alltoall sends 4 x 1/2 = 2 copies across,
  // DeepEP 1 - 1,820 / 35,960.
  EXPECT_NEAR(deepep_network_share(32, 4, 2), (1 - 1820.0 / 35960) / 2, 1e-12);
  // DeepSeek-V3's 256 experts, top 8, over 4 domains of 64: 3 x (1 - C(192, 8) / C(256, 8))
  // remote domains against 8 x 3/4 = 6 copies.
  double missed = 1;
  for (int i = 0; i < 8; ++i) missed *= (192.0 - i) / (256.0 - i);
  EXPECT_NEAR(deepep_network_share(256, 8, 4), 3 * (1 - missed) / 6, 1e-12);
  EXPECT_NEAR(deepep_network_share(256, 8, 4), 0.452, 0.001);
  // One domain, or top 1 (one copy either way): no saving.
  EXPECT_EQ(deepep_network_share(256, 8, 1), 1);
  EXPECT_NEAR(deepep_network_share(128, 1, 8), 1, 1e-12);
}

TEST(CollectiveTime, PointToPointUsesTheNetworkBetweenNodes) {
  EXPECT_NEAR(point_to_point_s(1e6, 4, fabric()), 10e-6 + 1e6 / 400e9, 1e-15);
  EXPECT_NEAR(point_to_point_s(1e6, 8, fabric()), 10e-6 + 1e6 / 50e9, 1e-15);
}

TEST(CollectiveTime, FabricOfAClusterScalesBandwidthAndTakesTheDomain) {
  ClusterShape c;
  c.gpu.nvlink_gb_per_s = 900;
  c.gpu.network_gb_per_s = 100;
  c.gpu.nvlink_domain = 72;
  c.per_node = 4;
  Fabric f = fabric_of(c, 0.5, 5e-6);
  EXPECT_DOUBLE_EQ(f.nvlink_bytes_per_s, 450e9);
  EXPECT_DOUBLE_EQ(f.network_bytes_per_s, 50e9);
  EXPECT_EQ(f.domain, 72);
  c.gpu.nvlink_domain = 0;
  EXPECT_EQ(fabric_of(c, 1, 0).domain, 4);
}

}  // namespace
}  // namespace openrecipes
