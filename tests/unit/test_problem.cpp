// families::problem: what a family's make_problem builds its tensors in.
#include <gtest/gtest.h>

#include "families/problem.hpp"

namespace kk3::families {
namespace {

// A family fills the tensor add() returned, then adds the next ones (expert_scale fills x and
// scale after adding y); the reference must still be the problem's tensor after later adds. With
// the tensors in a std::vector it dangled, and expert_scale's make_problem wrote through it
// (a segfault on the GPU machine, 2026-12-03).
TEST(problem, the_tensor_add_returns_stays_the_problems_after_more_adds) {
  problem p;
  tensor& first = p.add("first", dtype::fp32, {4}, role::input);
  for (int i = 0; i < 64; ++i) p.add("t" + std::to_string(i), dtype::u8, {1}, role::input);
  ASSERT_EQ(&first, &p.at("first"));
  first.data<float>()[3] = 2.5f;
  EXPECT_EQ(p.at("first").data<float>()[3], 2.5f);
  EXPECT_EQ(p.at("first").bytes.size(), 4 * sizeof(float));
}

}  // namespace
}  // namespace kk3::families
