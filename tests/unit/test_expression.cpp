// Constraint expressions: precedence, names, errors, division by zero.
#include <gtest/gtest.h>

#include "space/expression.hpp"

namespace kk3::space {
namespace {

long long eval(const std::string& text, const std::map<std::string, long long>& v = {}) {
  return expression::parse(text).evaluate(v);
}

TEST(expression, precedence_and_arithmetic) {
  EXPECT_EQ(eval("1 + 2 * 3"), 7);
  EXPECT_EQ(eval("(1 + 2) * 3"), 9);
  EXPECT_EQ(eval("7 / 2 + 7 % 2"), 4);
  EXPECT_EQ(eval("-3 + 5"), 2);
  EXPECT_EQ(eval("1 + 1 == 2 && 3 < 2 || !0"), 1);
  EXPECT_EQ(eval("2 < 3 == 1"), 1);
}

TEST(expression, knob_names) {
  const auto e = expression::parse("VEC_BYTES * UNROLL <= 32 && SPLIT != 3");
  EXPECT_EQ(e.evaluate({{"VEC_BYTES", 16}, {"UNROLL", 2}, {"SPLIT", 1}}), 1);
  EXPECT_EQ(e.evaluate({{"VEC_BYTES", 16}, {"UNROLL", 4}, {"SPLIT", 1}}), 0);
  EXPECT_EQ(e.evaluate({{"VEC_BYTES", 4}, {"UNROLL", 4}, {"SPLIT", 3}}), 0);
  EXPECT_EQ(e.names(), (std::vector<std::string>{"VEC_BYTES", "UNROLL", "SPLIT"}));
  EXPECT_THROW(static_cast<void>(e.evaluate({{"VEC_BYTES", 4}})), std::invalid_argument);
}

TEST(expression, division_by_zero_rejects_the_variant) {
  EXPECT_EQ(eval("64 % N == 0", {{"N", 0}}), 0);
  EXPECT_EQ(eval("64 / N >= 1", {{"N", 0}}), 0);
}

TEST(expression, parse_errors_say_where) {
  for (const char* bad : {"1 +", "(1", "A $ B", "", "1 2"}) {
    try {
      static_cast<void>(expression::parse(bad));
      ADD_FAILURE() << "parsed: " << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("column"), std::string::npos) << e.what();
    }
  }
}

// Found by fuzz_family_config: a literal beyond 64 bits threw std::out_of_range out of the config
// loader (an abort) instead of a parse error that names the constraint.
TEST(expression, a_number_beyond_64_bits_is_a_parse_error) {
  try {
    static_cast<void>(expression::parse("B <= 1 || GPW == 666666666666666666666666666666 % 2"));
    ADD_FAILURE() << "parsed";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("beyond 64 bits at column 18"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kk3::space
