// attn_res's block write honours its index k (block_write_idx): the CPU reference stores p into
// block k, the layout has room for it, k < NB is refused, and the verifier's edge shapes of every
// block-write mode cover k = NB and k = NB + 1 (a spare block NB left between).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "families/attn_res/attn_res.hpp"
#include "families/numerics.hpp"
#include "families/registry.hpp"
#include "verify/verifier.hpp"

namespace kk3::families {
namespace {

class attn_res_block_write : public ::testing::Test {
 protected:
  void SetUp() override { space = load_family_space(find_family("attn_res"), KK3_CONFIG_DIR); }
  const space::mode& mode(const std::string& name) { return space::find_mode(space.config, name); }
  /// The usage error `f` throws (failing the test when it throws none).
  template <class F>
  std::string usage_error(F f) {
    try {
      f();
    } catch (const error& e) {
      EXPECT_EQ(e.kind(), error_kind::usage) << e.what();
      return e.what();
    }
    ADD_FAILURE() << "no error";
    return {};
  }
  family_space space;
  attn_res ar;
};

TEST_F(attn_res_block_write, k_below_nb_is_refused_naming_the_mode_k_and_nb) {
  const std::string why = usage_error([&] {
    ar.model_shape(4, mode("write_nb4"), {{attn_res::k_block_write_idx, 3}});
  });
  EXPECT_NE(why.find("write_nb4"), std::string::npos) << why;
  EXPECT_NE(why.find("k=3"), std::string::npos) << why;
  EXPECT_NE(why.find("NB=4"), std::string::npos) << why;
  EXPECT_NE(why.find("source of the same call"), std::string::npos) << why;
  usage_error([&] { ar.model_shape(4, mode("write_nb0"), {{attn_res::k_block_write_idx, -1}}); });

  // A shape built by hand reaches the same check in every entry point.
  shape s = ar.model_shape(2, mode("write_nb4"), {});
  s.set(attn_res::k_block_write_idx, 2);
  EXPECT_NE(usage_error([&] { ar.make_problem(s, mode("write_nb4"), 1); }).find("k=2"),
            std::string::npos);
  problem p = ar.make_problem(ar.model_shape(2, mode("write_nb4"), {}), mode("write_nb4"), 1);
  usage_error([&] { ar.reference(s, mode("write_nb4"), p); });

  // A mode without a block write takes no k at all.
  const std::string none = usage_error([&] {
    ar.model_shape(4, mode("common_nb4"), {{attn_res::k_block_write_idx, 4}});
  });
  EXPECT_NE(none.find("common_nb4"), std::string::npos) << none;
  EXPECT_NE(none.find("no block write"), std::string::npos) << none;
}

TEST_F(attn_res_block_write, k_is_named_in_the_shape_only_where_it_is_not_nb) {
  const shape model = ar.model_shape(3, mode("write_nb4"), {});
  EXPECT_EQ(model.model, (dims{{"blocks", 4}}));
  EXPECT_EQ(ar.model_shape(3, mode("write_nb4"), {{attn_res::k_block_write_idx, 4}}).model,
            model.model);
  shape spare = ar.model_shape(3, mode("write_nb4"), {{attn_res::k_block_write_idx, 5}});
  spare.strided = true;
  EXPECT_EQ(verify::shape_name(spare), "T3-NB4-block_write_idx5-strided");
  EXPECT_EQ(verify::shape_name(model), "T3-NB4");
}

// With k = NB + 1 the reference stores p into block NB + 1 and leaves block NB (a spare row the
// layout keeps) untouched, strided or not, at NB = 0 and 3.
TEST_F(attn_res_block_write, the_reference_writes_block_nb_plus_1_and_leaves_block_nb_untouched) {
  const long long H = 7168;
  for (const char* name : {"write_nb0", "write_nb3"}) {
    const long long nb = mode(name).define_or("NB", -1);
    for (bool strided : {false, true}) {
      SCOPED_TRACE(std::string(name) + (strided ? " strided" : ""));
      shape s = ar.model_shape(3, mode(name), {{attn_res::k_block_write_idx, nb + 1}});
      s.strided = strided;
      problem p = ar.make_problem(s, mode(name), 21);
      const problem before = p;
      ar.reference(s, mode(name), p);
      const tensor& blocks = p.at("blocks");
      const long long token_stride = static_cast<long long>(blocks.elements()) / 3;
      const long long block_stride = H + (strided ? 64 : 0);
      EXPECT_GE(token_stride, (nb + 2) * block_stride) << "room for block NB + 1";
      const auto* b0 = before.at("blocks").data<std::uint16_t>();
      const auto* b1 = blocks.data<std::uint16_t>();
      const auto* pre = p.at("prefix").data<std::uint16_t>();
      std::size_t spare_changed = 0, written = 0;
      for (long long t = 0; t < 3; ++t) {
        for (long long i = 0; i < H; ++i) {
          const long long at_k = t * token_stride + (nb + 1) * block_stride + i;
          const long long at_nb = t * token_stride + nb * block_stride + i;
          ASSERT_EQ(b1[at_k], pre[t * H + i]) << t << " " << i;  // p, into block k
          spare_changed += b1[at_nb] != b0[at_nb];
          written += b1[at_k] != b0[at_k];
        }
      }
      EXPECT_EQ(spare_changed, 0u);
      EXPECT_GT(written,
                static_cast<std::size_t>(2 * H));  // random bits: nearly every element changes
      // Nothing else of the blocks tensor changed either.
      std::size_t changed = 0;
      for (std::size_t i = 0; i < blocks.elements(); ++i) changed += b0[i] != b1[i];
      EXPECT_EQ(changed, written);
    }
  }
}

TEST_F(attn_res_block_write, every_block_write_modes_edge_shapes_cover_k_nb_and_nb_plus_1) {
  for (const auto& m : space.config.modes) {
    const long long nb = m.define_or("NB", -1);
    const std::vector<shape> edges = ar.edge_shapes(ar.model_shape(1, m, {}), m);
    std::vector<long long> ks;
    for (const shape& s : edges) ks.push_back(dim_or(s.model, attn_res::k_block_write_idx, nb));
    const bool spare = std::count(ks.begin(), ks.end(), nb + 1) > 0;
    if (m.define_or("BLOCK_WRITE", 0) != 0) {
      EXPECT_GT(std::count(ks.begin(), ks.end(), nb), 0) << m.name;
      EXPECT_TRUE(spare) << m.name;
      for (const shape& s : edges)
        EXPECT_NO_THROW(ar.make_problem(s, m, 1)) << m.name;  // the layout has room for k
    } else {
      EXPECT_FALSE(spare) << m.name;
    }
  }
}

}  // namespace
}  // namespace kk3::families
