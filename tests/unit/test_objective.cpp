// The objective (src/results/objective.hpp): its JSON form, the plan's and the flags' way of
// giving it, and what makes two objectives comparable.
#include <gtest/gtest.h>

#include <stdexcept>

#include "cli/objective_options.hpp"
#include "core/error.hpp"
#include "families/registry.hpp"
#include "results/objective.hpp"

namespace kk3::results {
namespace {

objective read(const ordered_json& j, const objective& defaults = {}) {
  return objective_from_json(j, defaults, "/objective",
                             [](const std::string& at, const std::string& what) {
                               throw std::runtime_error(at + ": " + what);
                             });
}

std::string error_of(const ordered_json& j) {
  try {
    read(j);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(objective, the_json_form_round_trips) {
  objective o;
  o.mode = timing_mode::chain;
  o.chain.producer = {"a GEMM", 7.5, 2, 256, -1, 0.5};
  o.chain.consumer = {"attention", 1, 128, 4096, consumer_reads::written};
  const ordered_json j = to_json(o);
  EXPECT_EQ(j["producer"]["smem_bytes"], "max");
  EXPECT_EQ(j["producer"]["trigger"], 0.5);
  EXPECT_EQ(j["consumer"]["reads"], "written");
  EXPECT_EQ(to_json(read(j)), j);
  EXPECT_EQ(identity(read(j)), identity(o));
  // Graph mode has no neighbours to write.
  EXPECT_FALSE(to_json(objective{}).contains("producer"));
}

TEST(objective, a_string_or_an_object_overrides_the_defaults) {
  objective d;
  d.mode = timing_mode::chain;
  d.chain.producer.duration_us = 5;
  EXPECT_EQ(read("graph", d).mode, timing_mode::graph);
  EXPECT_EQ(read("graph", d).chain.producer.duration_us, 5);
  const objective o = read({{"producer", {{"trigger", "start"}, {"duration_us", 9}}}}, d);
  EXPECT_EQ(o.mode, timing_mode::chain);
  EXPECT_EQ(o.chain.producer.trigger, 0);
  EXPECT_EQ(o.chain.producer.duration_us, 9);
  EXPECT_EQ(read({{"producer", {{"trigger", "never"}}}}, d).chain.producer.trigger, -1);
}

TEST(objective, bad_values_name_their_json_path) {
  EXPECT_EQ(error_of("fast"),
            "/objective: unknown timing mode \"fast\" (chain, graph, isolated or cold)");
  EXPECT_EQ(error_of({{"producer", {{"trigger", 2}}}}),
            "/objective/producer/trigger: expected \"start\", \"end\", \"never\" or a fraction "
            "from 0 to 1");
  EXPECT_EQ(error_of({{"consumer", {{"reads", "all"}}}}),
            "/objective/consumer/reads: expected \"outputs\", \"written\" or \"none\"");
  EXPECT_EQ(error_of({{"producer", {{"smem_bytes", -2}}}}),
            "/objective/producer/smem_bytes: expected \"max\" or an integer from 0 to 1048576");
  EXPECT_EQ(error_of({{"producer", {{"threads", 2048}}}}),
            "/objective/producer/threads: expected an integer from 32 to 1024");
  EXPECT_EQ(error_of({{"speed", 1}}), "/objective/speed: unknown key");
  EXPECT_EQ(error_of({{"pdl", 1}}), "/objective/pdl: expected true or false");
}

TEST(objective, differences_name_what_makes_times_incomparable) {
  objective a, b;
  EXPECT_TRUE(differences(a, b).empty());
  b.mode = timing_mode::isolated;
  b.pdl = false;
  EXPECT_EQ(differences(a, b),
            (std::vector<std::string>{"timing graph vs isolated", "PDL on vs off"}));
  a.mode = b.mode = timing_mode::chain;
  b.pdl = true;
  b.chain.consumer.reads = consumer_reads::none;
  b.chain.producer.stands_for = "words only";
  EXPECT_EQ(differences(a, b),
            (std::vector<std::string>{"consumer reads \"outputs\" vs \"none\""}));
}

TEST(objective, describe_says_it_in_words) {
  EXPECT_EQ(describe(objective{}), "graph (PDL)");
  objective o;
  o.mode = timing_mode::chain;
  EXPECT_EQ(describe(o),
            "chain: producer 5 us x 1 CTA/SM (384 threads, max smem, triggers at end) -> variant "
            "(PDL) -> consumer 1 CTA/SM (256 "
            "threads, no smem) reads outputs");
}

TEST(objective, the_pdl_families_default_to_the_chain_of_their_neighbours) {
  for (const char* name : {"mla_decode_epilogue", "attn_res"}) {
    const objective o = families::find_family(name).default_objective();
    EXPECT_EQ(o.mode, timing_mode::chain) << name;
    EXPECT_EQ(o.chain.producer.ctas_per_sm, 1u) << name << ": a persistent GEMM";
    EXPECT_EQ(o.chain.producer.smem_bytes, -1) << name << ": holding all shared memory";
    EXPECT_FALSE(o.chain.producer.stands_for.empty()) << name;
  }
  EXPECT_EQ(families::find_family("mla_decode_epilogue").default_objective().chain.consumer.reads,
            consumer_reads::written);
  EXPECT_EQ(families::find_family("expert_scale").default_objective().mode, timing_mode::graph);
}

TEST(objective, time_flags_change_the_family_model) {
  const families::family& f = families::find_family("attn_res");
  cli::objective_options flags;
  flags.values["producer-us"] = "2.5";
  flags.values["producer-smem"] = "0";
  flags.values["consumer-reads"] = "none";
  const objective o = cli::objective_of(f.default_objective(), timing_mode::chain, true, flags);
  EXPECT_EQ(o.chain.producer.duration_us, 2.5);
  EXPECT_EQ(o.chain.producer.smem_bytes, 0);
  EXPECT_EQ(o.chain.consumer.reads, consumer_reads::none);
  EXPECT_EQ(o.chain.producer.threads, f.default_objective().chain.producer.threads);
  flags.values["producer-trigger"] = "sometimes";
  try {
    cli::objective_of(f.default_objective(), timing_mode::chain, true, flags);
    FAIL() << "accepted a bad trigger";
  } catch (const error& e) {
    EXPECT_EQ(e.kind(), error_kind::usage);
    EXPECT_EQ(
        std::string(e.what()),
        "--producer-trigger: expected \"start\", \"end\", \"never\" or a fraction from 0 to 1");
  }
  cli::objective_options graph_only;
  graph_only.values["consumer-threads"] = "64";
  EXPECT_THROW(cli::objective_of(f.default_objective(), timing_mode::graph, true, graph_only),
               error);
}

}  // namespace
}  // namespace kk3::results
