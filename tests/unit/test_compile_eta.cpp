// sweep/compile_eta: the no-GPU sweep's ETA, fed synthetic compile costs. A plan whose first
// family is 100 times cheaper than its second fools a rate taken from the first compiles by
// nearly 100 times; the pilot's sample keeps the ETA within a small factor throughout.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "sweep/compile_eta.hpp"

namespace kk3::sweep {
namespace {

TEST(CompileEta, PilotOrderIsAFixedPermutation) {
  const std::vector<std::size_t> a = pilot_order(1000, 7), b = pilot_order(1000, 7);
  EXPECT_EQ(a, b);
  EXPECT_EQ(std::set<std::size_t>(a.begin(), a.end()).size(), 1000u);
  EXPECT_NE(a, pilot_order(1000, 8));
  std::size_t in_first_half = 0;  // an unbiased sample: about half of the first 100 are < 500
  for (std::size_t i = 0; i < 100; ++i) in_first_half += a[i] < 500;
  EXPECT_GT(in_first_half, 30u);
  EXPECT_LT(in_first_half, 70u);
  EXPECT_EQ(pilot_size(10), 2u);
  EXPECT_EQ(pilot_size(100), 16u);
  EXPECT_EQ(pilot_size(4704), 147u);
}

struct run {
  double worst_ratio = 1;  ///< max over the checkpoints of max(eta/truth, truth/eta)
};

// Runs 1000 compiles of 0.01 s (family a) then 1000 of 1 s (family b), one at a time, with or
// without the pilot, and checks the ETA against the truth after each tenth of the way past 5%.
run simulate(bool pilot) {
  std::vector<std::string> group;
  std::vector<double> cost;
  for (int i = 0; i < 2000; ++i) {
    group.push_back(i < 1000 ? "a" : "b");
    cost.push_back(i < 1000 ? 0.01 : 1.0);
  }
  double total = 0;
  for (double c : cost) total += c;
  compile_eta eta(group);
  double elapsed = 0;
  std::vector<bool> done(cost.size());
  run r;
  auto check = [&] {
    const std::optional<double> e = eta.eta_s(elapsed);
    ASSERT_TRUE(e);
    const double truth = total - elapsed;
    if (truth < 1) return;
    r.worst_ratio = std::max({r.worst_ratio, *e / truth, truth / std::max(*e, 1e-9)});
  };
  if (pilot) {
    const std::vector<std::size_t> order = pilot_order(cost.size(), 42);
    for (std::size_t k = 0; k < pilot_size(cost.size()); ++k) {
      const std::size_t i = order[k];
      elapsed += cost[i];
      done[i] = true;
      eta.sampled(i, cost[i]);
    }
    eta.learn();
  }
  std::size_t finished = eta.finished();
  for (std::size_t i = 0; i < cost.size(); ++i) {
    if (done[i]) continue;
    elapsed += cost[i];
    eta.done(i);
    ++finished;
    if (finished >= 100 && finished % 200 == 0) check();
  }
  return r;
}

TEST(CompileEta, PilotKeepsTheEtaHonest) {
  EXPECT_LT(simulate(true).worst_ratio, 1.3);
  // Without the pilot (a rate of the compiles so far) the same plan is off by about 50 times.
  EXPECT_GT(simulate(false).worst_ratio, 20);
}

TEST(CompileEta, NothingBeforeTheFirstCompile) {
  compile_eta eta({"a", "b"});
  EXPECT_FALSE(eta.eta_s(0));
  eta.sampled(0, 2.0);
  eta.learn();
  ASSERT_TRUE(eta.eta_s(2.0));
  EXPECT_DOUBLE_EQ(*eta.eta_s(2.0), 2.0);  // b takes the mean of all samples: 2 s
  eta.done(1);
  EXPECT_DOUBLE_EQ(*eta.eta_s(4.0), 0);
}

}  // namespace
}  // namespace kk3::sweep
