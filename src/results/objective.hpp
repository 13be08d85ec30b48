#pragma once
// The objective (SPEC 2, "Objective"): what a time stands for. A decode kernel runs once between a
// producer and a consumer, so for PDL families the sweep minimises the latency a variant adds to
// a chain producer -> variant -> consumer, with both neighbours modelled; graph (back to back
// with itself) and isolated remain for kernels that run that way. Pure data and its JSON form:
// no GPU here (timer.cpp launches the chain).
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kk3::results {

/// How a sample is taken.
enum class timing_mode {
  graph,     ///< N launches captured in one CUDA graph; per-launch = replay time / N
  isolated,  ///< one launch between an event pair, queued behind a gate so host latency stays out
  cold,      ///< isolated, with L2 flushed before each sample and inputs rotated
  chain,     ///< producer -> variant -> consumer (PDL); reports the latency the variant adds
};
const char* to_string(timing_mode m);
/// Every timing mode's name, in the enum's order: graph, isolated, cold, chain.
const std::vector<std::string>& timing_mode_names();
/// Parses "graph", "isolated", "cold" or "chain"; throws error(usage).
timing_mode parse_timing_mode(const std::string& name);

/// The kernel before the variant in the chain (e.g. a persistent GEMM that produces its input).
struct producer_model {
  std::string stands_for;     ///< what it models, in words (documentation, not identity)
  double duration_us = 5;     ///< how long each CTA runs
  unsigned ctas_per_sm = 1;   ///< grid = this x the SM count
  unsigned threads = 384;     ///< per CTA
  long long smem_bytes = -1;  ///< dynamic shared memory per CTA; -1: the most one CTA may have
                              ///< on the device, so nothing else fits on an SM beside it
  double trigger = 1;         ///< when each CTA triggers its dependents, as a fraction of
                              ///< duration_us (0: at its start, 1: at its end); < 0: never
                              ///< (the dependent launches when the producer has ended)
};

/// What the consumer of the variant's results reads after its griddepcontrol.wait.
enum class consumer_reads {
  outputs,  ///< the variant's output tensors (e.g. a GEMM reading the hidden state)
  written,  ///< its outputs and the tensors it updates in place (e.g. attention reading q and the
            ///< KV cache)
  none,     ///< nothing: only the dependency
};
const char* to_string(consumer_reads r);

/// The kernel after the variant in the chain.
struct consumer_model {
  std::string stands_for;
  unsigned ctas_per_sm = 1;
  unsigned threads = 256;
  long long smem_bytes = 0;  ///< as producer_model::smem_bytes
  consumer_reads reads = consumer_reads::outputs;
};

/// The neighbours of chain mode.
struct chain_model {
  producer_model producer;
  consumer_model consumer;
};

/// What a time measures.
struct objective {
  timing_mode mode = timing_mode::graph;
  bool pdl = true;    ///< the variant launched with the PDL attribute, as served
  chain_model chain;  ///< used in chain mode only
};

using ordered_json = nlohmann::ordered_json;

/// The JSON form: {"timing", "pdl", and in chain mode "producer" and "consumer"}. smem_bytes -1
/// is written "max"; the trigger "start", "end", "never" or a fraction.
ordered_json to_json(const objective& o);

/// Reads an objective: a string (a timing mode: `defaults` with that mode) or an object whose keys
/// override `defaults`. `fail(pointer, what)` reports an error and must not return.
objective objective_from_json(
    const ordered_json& j, const objective& defaults, const std::string& pointer,
    const std::function<void(const std::string&, const std::string&)>& fail);

/// One line for summaries, reports and header comments, e.g. "chain: producer 5 us x 1 CTA/SM
/// (384 threads, max smem, triggers at end) -> variant (PDL) -> consumer reads outputs".
std::string describe(const objective& o);

/// What makes two objectives' times comparable: the JSON form without the descriptions.
std::string identity(const objective& o);

/// How `b` differs from `a` in what makes times comparable ("timing graph vs chain", "PDL on vs
/// off", "producer duration_us 5 vs 8", ...); empty when comparable.
std::vector<std::string> differences(const objective& a, const objective& b);

}  // namespace kk3::results
