// Family configs: loading, checking with JSON-pointer messages, variant enumeration.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "families/registry.hpp"
#include "space/config.hpp"
#include "space/variant.hpp"
#include "support/test_support.hpp"

namespace kk3::space {
namespace {

const char* k_valid = R"({
  "family": "demo", "source": "demo.cuh", "entry": "demo<{A}>",
  "modes": {"bf16": {"FP8": 0}, "fp8": {"FP8": 1}},
  "knobs": {"A": [1, 2, 3], "B": [10, 20]},
  "constraints": ["A * B != 60"],
  "reference": {"A": 1, "B": 10}
})";

family_config load_text(const test::temp_dir& dir, const std::string& text) {
  const auto file = dir.path() / "demo.json";
  test::write_text(file, text);
  return load_family_config(file);
}

std::string error_of(const std::string& text) {
  test::temp_dir dir;
  try {
    load_text(dir, text);
  } catch (const error& e) {
    EXPECT_EQ(e.kind(), error_kind::config);
    return e.what();
  }
  return "no error";
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(config, enumerates_variants_in_order_with_constraints) {
  test::temp_dir dir;
  const family_config cfg = load_text(dir, k_valid);
  const auto variants = enumerate_variants(cfg);
  std::vector<std::string> ids;
  for (const auto& v : variants) ids.push_back(v.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"a1-b10", "a1-b20", "a2-b10", "a2-b20", "a3-b10"}));
  EXPECT_TRUE(variants[0].is_reference);
  EXPECT_EQ(std::count_if(variants.begin(), variants.end(),
                          [](const variant& v) { return v.is_reference; }),
            1);
  EXPECT_EQ(entry_expression(cfg, variants[2]), "demo<2>");
  EXPECT_EQ(variant_defines(cfg, cfg.modes[1], variants[2]),
            (std::vector<std::string>{"-DKK3_DEMO_FP8=1", "-DKK3_DEMO_B=10"}));
  EXPECT_EQ(macro_prefix("mla_decode_epilogue"), "KK3_MLA_DECODE_EPILOGUE_");
  EXPECT_EQ(find_variant(variants, cfg, "reference").id, "a1-b10");
  EXPECT_THROW(static_cast<void>(find_variant(variants, cfg, "a9-b9")), error);
}

TEST(config, errors_name_the_file_and_json_path) {
  EXPECT_NE(error_of("{").find("not valid JSON"), std::string::npos);
  // A number beyond a double is nlohmann's out_of_range, not a parse_error (found by fuzz/).
  EXPECT_NE(error_of(replace(k_valid, "[1, 2, 3]", "[1, 2e308, 3]")).find("not valid JSON"),
            std::string::npos);
  EXPECT_NE(error_of(replace(k_valid, "[1, 2, 3]", "[1, \"two\", 3]"))
                .find("demo.json: /knobs/A/1: expected a non-negative integer"),
            std::string::npos);
  EXPECT_NE(error_of(replace(k_valid, "[1, 2, 3]", "[1, 2, -7]"))
                .find("demo.json: /knobs/A/2: expected a non-negative integer"),
            std::string::npos);
  EXPECT_NE(error_of(replace(k_valid, "\"family\"", "\"famly\"")).find("/famly: unknown key"),
            std::string::npos);
  EXPECT_NE(
      error_of(replace(k_valid, "[1, 2, 3]", "[]")).find("/knobs/A: expected a non-empty array"),
      std::string::npos);
  EXPECT_NE(
      error_of(replace(k_valid, "A * B != 60", "A * C")).find("/constraints/0: unknown knob 'C'"),
      std::string::npos);
  EXPECT_NE(error_of(replace(k_valid, "A * B != 60", "A *")).find("/constraints/0:"),
            std::string::npos);
  EXPECT_NE(error_of(replace(k_valid, "\"A\": 1, \"B\": 10}", "\"A\": 7, \"B\": 10}"))
                .find("/reference/A: not one of"),
            std::string::npos);
  EXPECT_NE(error_of(replace(k_valid, "demo<{A}>", "demo<{Z}>")).find("/entry: unknown knob"),
            std::string::npos);
  EXPECT_NE(error_of(replace(k_valid, "\"A * B != 60\"", "\"A > 1\"")).find("/reference: violates"),
            std::string::npos);
  // Constraints no variant satisfies are reported as such, not as a bad reference.
  EXPECT_NE(error_of(replace(k_valid, "\"A * B != 60\"", "\"A > 5\""))
                .find("demo.json: /constraints/0: the constraints leave no variant"),
            std::string::npos);
}

TEST(config, constraints_that_leave_nothing_are_an_error) {
  test::temp_dir dir;
  auto cfg = load_text(dir, k_valid);
  cfg.constraints.push_back(expression::parse("A > 100"));
  try {
    static_cast<void>(enumerate_variants(cfg));
    FAIL() << "no error";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("leave no variant"), std::string::npos);
  }
}

TEST(config, shipped_configs_load) {
  // Every registered family, the test families too: their configs are in KK3_ALL_CONFIG_DIR.
  for (const families::family* f : families::all_families()) {
    const auto s = families::load_family_space(*f, KK3_ALL_CONFIG_DIR);
    EXPECT_FALSE(s.variants.empty()) << f->name();
  }
}

}  // namespace
}  // namespace kk3::space
