// The mla_decode_epilogue CPU reference on hand-worked cases.
#include <gtest/gtest.h>

#include <cstring>

#include "families/mla_decode_epilogue/mla_decode_epilogue.hpp"
#include "families/numerics.hpp"
#include "families/registry.hpp"

namespace kk3::families {
namespace {

class mla_reference : public ::testing::Test {
 protected:
  void SetUp() override {
    space = load_family_space(find_family("mla_decode_epilogue"), KK3_CONFIG_DIR);
  }
  const space::mode& mode(const std::string& name) { return space::find_mode(space.config, name); }
  template <class T>
  static T* at(problem& p, const char* name) {
    return reinterpret_cast<T*>(p.at(name).bytes.data());
  }
  family_space space;
  mla_decode_epilogue mla;
};

TEST_F(mla_reference, bf16_is_an_exact_copy_with_strides_and_skips_negative_slots) {
  shape s = mla.model_shape(3, mode("bf16"), {{"heads", 2}});
  s.strided = true;
  problem p = mla.make_problem(s, mode("bf16"), 7);
  const mla_layout l = mla_layout_for(s);
  at<long long>(p, "slot_mapping")[0] = 5;
  at<long long>(p, "slot_mapping")[1] = -1;
  at<long long>(p, "slot_mapping")[2] = 0;
  const problem before = p;
  mla.reference(s, mode("bf16"), p);
  const auto* ql = at<std::uint16_t>(p, "ql_nope");
  const auto* qpe = at<std::uint16_t>(p, "q_pe");
  const auto* q = at<std::uint16_t>(p, "mqa_q");
  // token 2, head 1
  EXPECT_EQ(q[(2 * 2 + 1) * 576 + 0], ql[2 * l.ql_token_stride + 1 * l.ql_head_stride + 0]);
  EXPECT_EQ(q[(2 * 2 + 1) * 576 + 511], ql[2 * l.ql_token_stride + 1 * l.ql_head_stride + 511]);
  EXPECT_EQ(q[(2 * 2 + 1) * 576 + 512], qpe[2 * l.qpe_token_stride + 1 * l.qpe_head_stride + 0]);
  EXPECT_EQ(q[(2 * 2 + 1) * 576 + 575], qpe[2 * l.qpe_token_stride + 1 * l.qpe_head_stride + 63]);
  const auto* cache = at<std::uint16_t>(p, "kv_cache");
  const auto* old_cache =
      reinterpret_cast<const std::uint16_t*>(before.at("kv_cache").bytes.data());
  EXPECT_EQ(cache[5 * 576 + 3], at<std::uint16_t>(p, "kv_c")[0 * 512 + 3]);
  EXPECT_EQ(cache[0 * 576 + 512], at<std::uint16_t>(p, "k_pe")[2 * l.kpe_row_stride + 0]);
  // Every cache row but 0 and 5 is untouched (token 1's slot is negative).
  for (long long row = 0; row < l.num_blocks * s.at("block_size"); ++row) {
    if (row == 0 || row == 5) continue;
    EXPECT_EQ(std::memcmp(cache + row * 576, old_cache + row * 576, 576 * 2), 0) << row;
  }
}

TEST_F(mla_reference, rope_rotates_pairs_in_fp32_then_rounds) {
  const shape s = mla.model_shape(1, mode("bf16"), {{"heads", 1}});
  problem p = mla.make_problem(s, mode("bf16_rope"), 3);
  at<long long>(p, "positions")[0] = 0;
  float* cs = at<float>(p, "cos_sin_cache");
  for (int i = 0; i < 32; ++i) {
    cs[i] = 0.0f;       // cos
    cs[32 + i] = 1.0f;  // sin: (x, y) -> (-y, x)
  }
  cs[1] = 0.5f;  // pair 1: cos 0.5, sin 1 -> (0.5x - y, x + 0.5y)
  auto* qpe = at<std::uint16_t>(p, "q_pe");
  qpe[0] = f32_to_bf16_rn(3.0f);
  qpe[1] = f32_to_bf16_rn(-2.0f);
  qpe[2] = f32_to_bf16_rn(1.0f);
  qpe[3] = f32_to_bf16_rn(1.0f / 3.0f);  // 0x3eab = 0.333984375
  mla.reference(s, mode("bf16_rope"), p);
  const auto* q = at<std::uint16_t>(p, "mqa_q");
  EXPECT_EQ(bf16_to_f32(q[512]), 2.0f);  // -y
  EXPECT_EQ(bf16_to_f32(q[513]), 3.0f);  // x
  // 0.5 * 1 - 0.333984375 = 0.166015625 -> bf16 0.166015625 (exact: 0x3e2a)
  EXPECT_EQ(q[514], 0x3e2a);
  // 1 + 0.5 * 0.333984375 = 1.1669921875 -> bf16 ties-to-even neighbourhood: 1.1640625 or 1.171875
  EXPECT_EQ(q[515], f32_to_bf16_rn(1.0f + 0.5f * bf16_to_f32(0x3eab)));
  EXPECT_EQ(q[515], 0x3f95);                            // 1.1640625: the nearer one
  EXPECT_EQ(q[0], at<std::uint16_t>(p, "ql_nope")[0]);  // the latent part is a bit copy
}

TEST_F(mla_reference, fp8_scales_then_saturates_every_element) {
  const shape s = mla.model_shape(1, mode("bf16"), {{"heads", 1}});
  problem p = mla.make_problem(s, mode("fp8"), 5);
  at<float>(p, "q_scale_inv")[0] = 100.0f;
  at<float>(p, "cache_scale_inv")[0] = 0.5f;
  at<long long>(p, "slot_mapping")[0] = 2;
  auto* ql = at<std::uint16_t>(p, "ql_nope");
  ql[0] = f32_to_bf16_rn(1.0f);      // 100: a tie between 96 (0x6c, even) and 104
  ql[1] = f32_to_bf16_rn(5.0f);      // 500: saturates to 448
  ql[2] = f32_to_bf16_rn(-0.0625f);  // -6.25: a tie between -6 (0xcc, even) and -6.5
  at<std::uint16_t>(p, "kv_c")[0] = f32_to_bf16_rn(3.0f);  // 1.5 -> 0x3c
  mla.reference(s, mode("fp8"), p);
  const auto* q = at<std::uint8_t>(p, "mqa_q");
  EXPECT_EQ(q[0], 0x6c);
  EXPECT_EQ(q[1], 0x7e);
  EXPECT_EQ(q[2], 0xcc);
  EXPECT_EQ(at<std::uint8_t>(p, "kv_cache")[2 * 576 + 0], 0x3c);  // 3 * 0.5 = 1.5
}

}  // namespace
}  // namespace kk3::families
