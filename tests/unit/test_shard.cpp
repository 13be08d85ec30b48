// The sweep as a plan of work items (issue 15): the items of a plan, the shard partition, and
// sharded compile-only sweeps that together hold exactly the unsharded sweep's records.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "support/test_support.hpp"
#include "sweep/plan.hpp"
#include "sweep/sweep_config.hpp"

namespace kk3::sweep {
namespace {

namespace fs = std::filesystem;

/// A small plan: two families, five modes, mla at two head counts (so a mode has two items).
const char* k_plan = R"({
  "families": {
    "mla_decode_epilogue": {"modes": ["bf16", "fp8"], "heads": [16, 32],
      "variants": ["split1-unroll3-early_reads1-cache_wait1-rows_per_warp1-trigger_early1-threads128"]},
    "attn_res": {"modes": ["common_nb1", "post_nb8", "write_nb0"],
      "variants": ["b7-gpw1-nc0-stage0-unroll1-stages1-tpc1-trigger1"]}
  },
  "tokens": [1, 64, 1024]
})";

struct plan_fixture {
  test::temp_dir dir;
  sweep_request request;
  plan_fixture() {
    test::write_text(dir.path() / "plan.json", k_plan);
    request.config = load_sweep_config(dir.path() / "plan.json");
    request.config_dir = KK3_CONFIG_DIR;
    request.kernel_dir = KK3_KERNEL_DIR;
  }
};

TEST(shard, items_follow_the_plan_and_the_family_names_its_shapes) {
  plan_fixture f;
  const sweep_plan plan = make_plan(f.request);
  const std::vector<std::string> expected = {
      "mla_decode_epilogue/bf16/heads=16", "mla_decode_epilogue/bf16/heads=32",
      "mla_decode_epilogue/fp8/heads=16",  "mla_decode_epilogue/fp8/heads=32",
      "attn_res/write_nb0/blocks=0",       "attn_res/post_nb8/blocks=8",
      "attn_res/common_nb1/blocks=1"};
  EXPECT_EQ(item_keys(plan), expected);
  std::vector<bool> first;
  for (const work_item& i : plan.items) first.push_back(i.first_of_mode);
  EXPECT_EQ(first, (std::vector<bool>{true, false, true, false, true, true, true}));
  // More bytes per call, more measurement: NB = 8 costs more than NB = 0.
  EXPECT_GT(plan.items[5].measure_cost, plan.items[4].measure_cost);
}

TEST(shard, every_partition_covers_each_item_once_and_depends_on_the_plan_alone) {
  plan_fixture f;
  const sweep_plan plan = make_plan(f.request);
  for (bool timed : {false, true}) {
    for (int n = 1; n <= 9; ++n) {
      std::multiset<std::size_t> seen;
      for (int i = 1; i <= n; ++i) {
        const auto mine = shard_items(plan, {i, n}, timed);
        EXPECT_TRUE(std::is_sorted(mine.begin(), mine.end()));
        EXPECT_EQ(mine, shard_items(make_plan(f.request), {i, n}, timed)) << "not deterministic";
        if (n <= static_cast<int>(plan.items.size())) EXPECT_FALSE(mine.empty()) << i << "/" << n;
        seen.insert(mine.begin(), mine.end());
      }
      EXPECT_EQ(seen.size(), plan.items.size()) << n;
      EXPECT_EQ(std::set<std::size_t>(seen.begin(), seen.end()).size(), plan.items.size()) << n;
    }
  }
  EXPECT_EQ(shard_items(plan, {1, 1}, true).size(), plan.items.size());
}

TEST(shard, the_costliest_items_go_to_different_shards) {
  plan_fixture f;
  const sweep_plan plan = make_plan(f.request);
  // Timed: the two costliest items start the two shards' loads.
  std::vector<std::size_t> by_cost(plan.items.size());
  for (std::size_t i = 0; i < by_cost.size(); ++i) by_cost[i] = i;
  std::stable_sort(by_cost.begin(), by_cost.end(), [&](auto a, auto b) {
    return plan.items[a].measure_cost > plan.items[b].measure_cost;
  });
  const auto one = shard_items(plan, {1, 2}, true);
  const bool first_in_one = std::count(one.begin(), one.end(), by_cost[0]) == 1;
  const bool second_in_one = std::count(one.begin(), one.end(), by_cost[1]) == 1;
  EXPECT_NE(first_in_one, second_in_one);
}

TEST(shard, bad_shards_are_usage_errors) {
  EXPECT_EQ(parse_shard("2/3").index, 2);
  EXPECT_EQ(parse_shard("2/3").count, 3);
  for (const char* bad : {"0/2", "3/2", "1/0", "1", "a/b", "1/2/3", "-1/2", "1/9999999"}) {
    try {
      parse_shard(bad);
      ADD_FAILURE() << bad;
    } catch (const error& e) {
      EXPECT_EQ(e.kind(), error_kind::usage);
      EXPECT_NE(std::string(e.what()).find("--shard"), std::string::npos);
    }
  }
}

nlohmann::json read_json(const fs::path& file) {
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

// Without a GPU: shards 1/2 + 2/2 and 1/3..3/3 hold exactly the unsharded sweep's records
// (in item order), the same plan digest and item list, and compile counts that add up.
TEST(shard, compile_only_shards_hold_the_unsharded_records) {
  plan_fixture f;
  const fs::path plan = f.dir.path() / "plan.json", cache = f.dir.path() / "cache";
  auto sweep = [&](const std::string& shard, const fs::path& out) {
    std::vector<std::string> args = {"--config-dir", KK3_CONFIG_DIR, "sweep",     "--config",
                                     plan.string(),  "--arch",       "sm_90a",    "--cache-dir",
                                     cache.string(), "--out",        out.string()};
    if (!shard.empty()) args.insert(args.end(), {"--shard", shard});
    const auto r = test::run_kk3tune(args, {"KK3TUNE_LIBCUDA=/nonexistent/libcuda.so.1"});
    EXPECT_EQ(r.exit_code, 3) << r.output;  // no GPU: compiled, nothing timed
    return read_json(out);
  };
  const nlohmann::json whole = sweep("", f.dir.path() / "whole.json");
  EXPECT_TRUE(whole["plan"]["shard"].is_null());
  EXPECT_EQ(whole["plan"]["items"].size(), 7u);
  for (int n : {2, 3}) {
    std::vector<std::pair<std::size_t, nlohmann::json>> records;  // (item, record)
    std::size_t compiles = 0;
    for (int i = 1; i <= n; ++i) {
      const std::string shard = std::to_string(i) + "/" + std::to_string(n);
      const nlohmann::json part =
          sweep(shard, f.dir.path() / ("shard-" + std::to_string(i) + ".json"));
      EXPECT_EQ(part["plan"]["digest"], whole["plan"]["digest"]) << shard;
      EXPECT_EQ(part["plan"]["items"], whole["plan"]["items"]) << shard;
      EXPECT_EQ(part["families"], whole["families"]) << shard;
      EXPECT_EQ(part["plan"]["shard"]["index"], i);
      compiles += part["plan"]["compiles"].get<std::size_t>();
      for (const auto& rec : part["records"]) {
        std::string key = rec["family"].get<std::string>() + "/" + rec["mode"].get<std::string>();
        for (const auto& [name, value] : rec["shape"].items())
          key += "/" + name + "=" + std::to_string(value.get<long long>());
        const auto& items = whole["plan"]["items"];
        const auto at = std::find(items.begin(), items.end(), key);
        ASSERT_NE(at, items.end()) << key;
        const auto mine = part["plan"]["shard"]["items"];
        EXPECT_NE(std::find(mine.begin(), mine.end(), at - items.begin()), mine.end())
            << key << " is not among " << shard << "'s items";
        records.emplace_back(static_cast<std::size_t>(at - items.begin()), rec);
      }
    }
    std::stable_sort(records.begin(), records.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    nlohmann::json joined = nlohmann::json::array();
    for (const auto& r : records) joined.push_back(r.second);
    EXPECT_EQ(joined, whole["records"]) << n << " shards";
    EXPECT_EQ(compiles, whole["plan"]["compiles"].get<std::size_t>()) << n << " shards";
  }
}

}  // namespace
}  // namespace kk3::sweep
