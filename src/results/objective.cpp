#include "results/objective.hpp"

#include <cmath>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"

namespace kk3::results {

const char* to_string(timing_mode m) {
  switch (m) {
    case timing_mode::graph:
      return "graph";
    case timing_mode::isolated:
      return "isolated";
    case timing_mode::cold:
      return "cold";
    case timing_mode::chain:
      return "chain";
  }
  return "unknown";
}

namespace {
constexpr timing_mode k_timing_modes[] = {timing_mode::graph, timing_mode::isolated,
                                          timing_mode::cold, timing_mode::chain};
}  // namespace

const std::vector<std::string>& timing_mode_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (timing_mode m : k_timing_modes) v.emplace_back(to_string(m));
    return v;
  }();
  return names;
}

timing_mode parse_timing_mode(const std::string& name) {
  for (timing_mode m : k_timing_modes) {
    if (name == to_string(m)) return m;
  }
  throw error(error_kind::usage,
              "unknown timing mode '" + name + "' (graph, isolated, cold, chain)");
}

const char* to_string(consumer_reads r) {
  switch (r) {
    case consumer_reads::outputs:
      return "outputs";
    case consumer_reads::written:
      return "written";
    case consumer_reads::none:
      return "none";
  }
  return "unknown";
}

namespace {

ordered_json smem_json(long long bytes) {
  return bytes < 0 ? ordered_json("max") : ordered_json(bytes);
}

ordered_json trigger_json(double t) {
  if (t < 0) return "never";
  if (t == 0) return "start";
  if (t == 1) return "end";
  return t;
}

std::string smem_text(long long bytes) {
  if (bytes < 0) return "max smem";
  if (bytes == 0) return "no smem";
  return format_number(static_cast<double>(bytes) / 1024.0) + " KiB smem";
}

std::string trigger_text(double t) {
  if (t < 0) return "never triggers";
  if (t == 0) return "triggers at start";
  if (t == 1) return "triggers at end";
  return "triggers at " + format_number(100 * t) + "%";
}

/// Reads the members of one neighbour's object.
class neighbour_reader {
 public:
  neighbour_reader(const ordered_json& j, std::string pointer,
                   const std::function<void(const std::string&, const std::string&)>& fail)
      : m_j(j), m_at(std::move(pointer)), m_fail(fail) {
    if (!j.is_object()) m_fail(m_at, "expected an object");
  }
  void only(const std::set<std::string>& keys) const {
    for (const auto& [k, v] : m_j.items()) {
      if (!keys.count(k)) m_fail(m_at + "/" + k, "unknown key");
    }
  }
  void text(const char* key, std::string& out) const {
    if (!m_j.contains(key)) return;
    if (!m_j[key].is_string()) m_fail(m_at + "/" + key, "expected a string");
    out = m_j[key].get<std::string>();
  }
  void number(const char* key, double lo, double hi, double& out) const {
    if (!m_j.contains(key)) return;
    const ordered_json& v = m_j[key];
    if (!v.is_number() || v.get<double>() < lo || v.get<double>() > hi) {
      m_fail(m_at + "/" + key,
             "expected a number from " + format_number(lo) + " to " + format_number(hi));
    }
    out = v.get<double>();
  }
  void count(const char* key, unsigned lo, unsigned hi, unsigned& out) const {
    if (!m_j.contains(key)) return;
    const ordered_json& v = m_j[key];
    if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi) {
      m_fail(m_at + "/" + key,
             "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
    }
    out = static_cast<unsigned>(v.get<long long>());
  }
  void smem(long long& out) const {
    if (!m_j.contains("smem_bytes")) return;
    const ordered_json& v = m_j["smem_bytes"];
    if (v == "max") {
      out = -1;
    } else if (v.is_number_integer() && v.get<long long>() >= 0 &&
               v.get<long long>() <= (1 << 20)) {
      out = v.get<long long>();
    } else {
      m_fail(m_at + "/smem_bytes", "expected \"max\" or an integer from 0 to 1048576");
    }
  }
  void trigger(double& out) const {
    if (!m_j.contains("trigger")) return;
    const ordered_json& v = m_j["trigger"];
    if (v == "start") {
      out = 0;
    } else if (v == "end") {
      out = 1;
    } else if (v == "never") {
      out = -1;
    } else if (v.is_number() && v.get<double>() >= 0 && v.get<double>() <= 1) {
      out = v.get<double>();
    } else {
      m_fail(m_at + "/trigger", "expected \"start\", \"end\", \"never\" or a fraction from 0 to 1");
    }
  }
  void reads(consumer_reads& out) const {
    if (!m_j.contains("reads")) return;
    for (consumer_reads r :
         {consumer_reads::outputs, consumer_reads::written, consumer_reads::none}) {
      if (m_j["reads"] == to_string(r)) {
        out = r;
        return;
      }
    }
    m_fail(m_at + "/reads", "expected \"outputs\", \"written\" or \"none\"");
  }

 private:
  const ordered_json& m_j;
  std::string m_at;
  const std::function<void(const std::string&, const std::string&)>& m_fail;
};

/// A JSON value in a message: numbers as people write them ("5", not "5.0").
std::string value_text(const ordered_json& v) {
  return v.is_number() ? format_number(v.get<double>()) : v.dump();
}

ordered_json chain_json(const chain_model& c) {
  const producer_model& p = c.producer;
  const consumer_model& q = c.consumer;
  return {{"producer",
           {{"stands_for", p.stands_for},
            {"duration_us", p.duration_us},
            {"ctas_per_sm", p.ctas_per_sm},
            {"threads", p.threads},
            {"smem_bytes", smem_json(p.smem_bytes)},
            {"trigger", trigger_json(p.trigger)}}},
          {"consumer",
           {{"stands_for", q.stands_for},
            {"ctas_per_sm", q.ctas_per_sm},
            {"threads", q.threads},
            {"smem_bytes", smem_json(q.smem_bytes)},
            {"reads", to_string(q.reads)}}}};
}

}  // namespace

ordered_json to_json(const objective& o) {
  ordered_json j = {{"timing", to_string(o.mode)}, {"pdl", o.pdl}};
  if (o.mode == timing_mode::chain) {
    const ordered_json chain = chain_json(o.chain);
    for (const auto& [k, v] : chain.items()) j[k] = v;
  }
  return j;
}

objective objective_from_json(
    const ordered_json& j, const objective& defaults, const std::string& pointer,
    const std::function<void(const std::string&, const std::string&)>& fail) {
  objective o = defaults;
  auto mode_of = [&](const ordered_json& v, const std::string& at) {
    if (!v.is_string()) fail(at, "expected a timing mode (\"chain\", \"graph\" or \"isolated\")");
    try {
      return parse_timing_mode(v.get<std::string>());
    } catch (const error&) {
      fail(at,
           "unknown timing mode \"" + v.get<std::string>() + "\" (chain, graph, isolated or cold)");
    }
    return timing_mode::graph;
  };
  if (j.is_string()) {
    o.mode = mode_of(j, pointer);
    return o;
  }
  neighbour_reader top(j, pointer, fail);
  top.only({"timing", "pdl", "producer", "consumer"});
  if (j.contains("timing")) o.mode = mode_of(j["timing"], pointer + "/timing");
  if (j.contains("pdl")) {
    if (!j["pdl"].is_boolean()) fail(pointer + "/pdl", "expected true or false");
    o.pdl = j["pdl"].get<bool>();
  }
  if (j.contains("producer")) {
    neighbour_reader r(j["producer"], pointer + "/producer", fail);
    r.only({"stands_for", "duration_us", "ctas_per_sm", "threads", "smem_bytes", "trigger"});
    producer_model& p = o.chain.producer;
    r.text("stands_for", p.stands_for);
    r.number("duration_us", 0, 1e5, p.duration_us);
    r.count("ctas_per_sm", 1, 32, p.ctas_per_sm);
    r.count("threads", 32, 1024, p.threads);
    r.smem(p.smem_bytes);
    r.trigger(p.trigger);
  }
  if (j.contains("consumer")) {
    neighbour_reader r(j["consumer"], pointer + "/consumer", fail);
    r.only({"stands_for", "ctas_per_sm", "threads", "smem_bytes", "reads"});
    consumer_model& q = o.chain.consumer;
    r.text("stands_for", q.stands_for);
    r.count("ctas_per_sm", 1, 32, q.ctas_per_sm);
    r.count("threads", 32, 1024, q.threads);
    r.smem(q.smem_bytes);
    r.reads(q.reads);
  }
  return o;
}

std::string describe(const objective& o) {
  std::string s = to_string(o.mode);
  const std::string pdl = o.pdl ? "PDL" : "no PDL";
  if (o.mode != timing_mode::chain) return s + " (" + pdl + ")";
  const producer_model& p = o.chain.producer;
  const consumer_model& q = o.chain.consumer;
  return s + ": producer " + format_number(p.duration_us) + " us x " +
         std::to_string(p.ctas_per_sm) + " CTA/SM (" + std::to_string(p.threads) + " threads, " +
         smem_text(p.smem_bytes) + ", " + trigger_text(p.trigger) + ") -> variant (" + pdl +
         ") -> consumer " + std::to_string(q.ctas_per_sm) + " CTA/SM (" +
         std::to_string(q.threads) + " threads, " + smem_text(q.smem_bytes) + ") reads " +
         to_string(q.reads);
}

std::string identity(const objective& o) {
  ordered_json j = to_json(o);
  for (const char* n : {"producer", "consumer"}) {
    if (j.contains(n)) j[n].erase("stands_for");
  }
  return j.dump();
}

std::vector<std::string> differences(const objective& a, const objective& b) {
  std::vector<std::string> out;
  if (a.mode != b.mode)
    out.push_back(std::string("timing ") + to_string(a.mode) + " vs " + to_string(b.mode));
  if (a.pdl != b.pdl)
    out.push_back(std::string("PDL ") + (a.pdl ? "on" : "off") + " vs " + (b.pdl ? "on" : "off"));
  if (a.mode != timing_mode::chain || b.mode != timing_mode::chain) return out;
  const ordered_json ja = chain_json(a.chain), jb = chain_json(b.chain);
  for (const char* n : {"producer", "consumer"}) {
    for (const auto& [k, v] : ja[n].items()) {
      if (k != "stands_for" && v != jb[n][k])
        out.push_back(std::string(n) + " " + k + " " + value_text(v) + " vs " +
                      value_text(jb[n][k]));
    }
  }
  return out;
}

}  // namespace kk3::results
