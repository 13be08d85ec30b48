// CLI11's parse errors in kk3tune's words (issue 25, item 5): a misspelt option gets a "did you
// mean", and no raw CLI11 sentence reaches the user. Each case runs the kk3tune binary with the
// driver hidden.
#include <gtest/gtest.h>

#include "core/text.hpp"
#include "support/test_support.hpp"

namespace kk3 {
namespace {

using test::contains;
using test::k_no_driver;
using test::run_kk3tune;

TEST(cli_parse_errors, a_misspelt_option_is_named_with_the_nearest_one) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--versoin"}, "kk3tune has no option --versoin (did you mean --version?)"},
      {{"--versoin", "list"}, "kk3tune has no option --versoin (did you mean --version?)"},
      {{"list", "--variant"}, "list has no option --variant (did you mean --variants?)"},
      {{"list", "--vairants"}, "list has no option --vairants (did you mean --variants?)"},
      {{"list", "--config-dri", "configs"},
       "list has no option --config-dri (did you mean --config-dir?)"},  // a global one
      {{"compile", "--arhc=sm_90a"}, "compile has no option --arhc (did you mean --arch?)"}};
  for (const auto& [args, message] : cases) {
    const auto r = run_kk3tune(args, {k_no_driver});
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "kk3tune: usage error: " + message)) << r.output;
    EXPECT_FALSE(contains(r.output, "not expected")) << r.output;
  }
  const auto r = run_kk3tune({"list", "--frobnicate"}, {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "list has no option --frobnicate\n"))
      << r.output;  // nothing near it
}

TEST(cli_parse_errors, cli11s_messages_are_reworded) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"list", "extra1", "extra2"}, "list takes no arguments ('extra1', 'extra2' given)"},
      {{"compare", "a.json", "b.json", "c.json"},
       "compare takes base, new: 'c.json' is one too many"},
      {{"emit"}, "emit needs --out: output folder"},
      {{"compare", "a.json"},
       "compare needs its argument new: the result JSON to check against it"},
      {{"compile", "--jobs", "many"}, "--jobs: 'many': expected a whole number of at least 0"},
      {{"compile", "--jobs"}, "--jobs needs a value: a whole number of at least 0"},
      {{"compare", "a.json", "b.json", "--threshold"}, "--threshold needs a value\n"},
      {{"compile", "--no-cache=maybe"}, "--no-cache: 'maybe': expected no value (it is a flag)"},
      {{"list", "--format", "xml"}, "--format: 'xml': expected one of text, json"},
      {{"time", "--family", "attn_res", "--timing", "chain", "--chain-workspaces", "0"},
       "--chain-workspaces: '0': expected 1 to 64"}};
  for (const auto& [args, message] : cases) {
    const auto r = run_kk3tune(args, {k_no_driver});
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "kk3tune: usage error: " + message)) << r.output;
    EXPECT_TRUE(contains(r.output, "Run 'kk3tune " + args[0] + " --help' for the options."))
        << r.output;
    for (const char* raw :
         {"The following argument", "is required", "Could not convert", "required TEXT missing",
          "required UINT missing", "not in {", "not in range"}) {
      EXPECT_FALSE(contains(r.output, raw)) << r.output;
    }
  }
}

TEST(cli_parse_errors, nearest_word) {
  const std::vector<std::string> names = {"--version", "--variants", "--verbose"};
  EXPECT_EQ(nearest_word("--versoin", names), "--version");
  EXPECT_EQ(nearest_word("--variant", names), "--variants");  // it begins that one
  EXPECT_EQ(nearest_word("--frobnicate", names), "");
  EXPECT_EQ(nearest_word("x", {"xy"}), "xy");  // one edit
  EXPECT_EQ(nearest_word("x", {"xyzw"}), "");  // too short to be a beginning, too far by edits
}

}  // namespace
}  // namespace kk3
