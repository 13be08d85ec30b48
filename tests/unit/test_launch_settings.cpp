// The launch settings a downstream build gets from the generated dispatch headers (settings(),
// which calls kernels/<family>_launch.h with the mode's dimensions) are the ones kk3tune itself
// launches with (family::geometry()): for every variant of every mode of both families, at
// token counts from 1 to beyond the tables, and for mla_decode_epilogue at several head counts.
// The headers compiled here are the ones the package installs (KK3_DISPATCH_ROOT).
#include <gtest/gtest.h>

#include <kk3tune/dispatch/attn_res.h>
#include <kk3tune/dispatch/mla_decode_epilogue.h>

#include <string>
#include <vector>

#include "families/registry.hpp"

namespace kk3::families {
namespace {

namespace ar = kk3tune::dispatch::attn_res;
namespace mla = kk3tune::dispatch::mla_decode_epilogue;

constexpr long long k_token_counts[] = {1, 2, 7, 8, 9, 64, 65, 333, 1024, 4097, 8192, 100000};

std::string text(const device::extent3& e) {
  return std::to_string(e.x) + "x" + std::to_string(e.y) + "x" + std::to_string(e.z);
}
std::string text(const kk3tune::kernels::launch_extent& e) {
  return std::to_string(e.x) + "x" + std::to_string(e.y) + "x" + std::to_string(e.z);
}

// Every field of `header` equals kk3tune's `own`; the PDL flag is the one the family is served
// and timed with (its default objective), since geometry() leaves it to each launch.
void expect_same(const kk3tune::kernels::launch_settings& header, const device::launch_config& own,
                 bool pdl, const std::string& where) {
  EXPECT_EQ(text(header.grid), text(own.grid)) << where;
  EXPECT_EQ(text(header.block), text(own.block)) << where;
  EXPECT_EQ(text(header.cluster), text(own.cluster)) << where;
  EXPECT_EQ(header.shared_bytes, own.shared_bytes) << where;
  EXPECT_EQ(header.pdl, pdl) << where;
}

template <class Mode>
Mode header_mode(const char* (*name_of)(Mode), bool (*from_name)(const char*, Mode&),
                 const space::mode& m) {
  Mode out{};
  EXPECT_TRUE(from_name(m.name.c_str(), out)) << m.name << ": no such mode in the header";
  EXPECT_EQ(std::string(name_of(out)), m.name);
  return out;
}

// For every mode and shipped variant of the family, every token count and every model shape
// `given` picks (key dimensions by name): `header(m, v, s)`, the header's settings() for them,
// equals geometry(v, m, s). Returns how many it compared.
template <class Header>
std::size_t expect_header_equals_geometry(const std::string& family_name,
                                          const std::vector<dims>& given, Header header) {
  const family& f = find_family(family_name);
  const family_space space = load_family_space(f, KK3_CONFIG_DIR);
  const bool pdl = f.default_objective().pdl;
  std::size_t checked = 0;
  for (const space::mode& m : space.config.modes) {
    for (const space::variant& v : space.variants) {
      if (v.test_only) continue;
      for (const dims& d : given) {
        for (const long long t : k_token_counts) {
          const shape s = f.model_shape(t, m, d);
          std::string where = m.name + " " + v.id + " T=" + std::to_string(t);
          for (const auto& [name, value] : s.model)
            where += " " + name + "=" + std::to_string(value);
          expect_same(header(m, v, s), f.geometry(v, m, s), pdl, where);
          ++checked;
        }
      }
    }
  }
  return checked;
}

TEST(launch_settings, attn_res_header_equals_geometry_for_every_variant_and_mode) {
  const std::size_t checked = expect_header_equals_geometry(
      "attn_res", {{}}, [](const space::mode& m, const space::variant& v, const shape& s) {
        ar::knobs k{};
        k.B = static_cast<int>(v.value("B"));
        k.GPW = static_cast<int>(v.value("GPW"));
        k.NC = static_cast<int>(v.value("NC"));
        k.STAGE = static_cast<int>(v.value("STAGE"));
        k.UNROLL = static_cast<int>(v.value("UNROLL"));
        k.STAGES = static_cast<int>(v.value("STAGES"));
        k.TPC = static_cast<int>(v.value("TPC"));
        k.TRIGGER = static_cast<int>(v.value("TRIGGER"));
        const ar::mode hm = header_mode<ar::mode>(ar::mode_name, ar::mode_from_name, m);
        return ar::settings(k, hm, static_cast<int>(s.at("blocks")), s.tokens);
      });
  EXPECT_GT(checked, 1000u);
}

TEST(launch_settings, mla_header_equals_geometry_for_every_variant_mode_and_head_count) {
  const std::size_t checked = expect_header_equals_geometry(
      "mla_decode_epilogue", {{{"heads", 1}}, {{"heads", 7}}, {{"heads", 16}}, {{"heads", 128}}},
      [](const space::mode& m, const space::variant& v, const shape& s) {
        mla::knobs k{};
        k.SPLIT = static_cast<int>(v.value("SPLIT"));
        k.UNROLL = static_cast<int>(v.value("UNROLL"));
        k.EARLY_READS = static_cast<int>(v.value("EARLY_READS"));
        k.CACHE_WAIT = static_cast<int>(v.value("CACHE_WAIT"));
        k.ROWS_PER_WARP = static_cast<int>(v.value("ROWS_PER_WARP"));
        k.TRIGGER_EARLY = static_cast<int>(v.value("TRIGGER_EARLY"));
        k.THREADS = static_cast<int>(v.value("THREADS"));
        const mla::mode hm = header_mode<mla::mode>(mla::mode_name, mla::mode_from_name, m);
        return mla::settings(k, hm, static_cast<int>(s.at("heads")), s.tokens);
      });
  EXPECT_GT(checked, 1000u);
}

// The launch settings are constant expressions: a downstream build can static_assert them.
static_assert(ar::settings(ar::reference_knobs, ar::mode::common_nb8, 8, 4097).grid.x == 4097);
static_assert(
    ar::settings(ar::knobs{7, 1, 0, 0, 1, 1, 1, 1}, ar::mode::common_nb8, 8, 3).cluster.x == 7);
static_assert(mla::settings(mla::reference_knobs, mla::mode::bf16, 16, 1).block.x == 128);

}  // namespace
}  // namespace kk3::families
