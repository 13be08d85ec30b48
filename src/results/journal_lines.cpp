#include "results/journal_lines.hpp"

#include <fstream>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "results/codec.hpp"

namespace kk3::results {
namespace {

/// 2: records in the result file's layout (results/codec.hpp).
constexpr int k_journal_version = 3;  // 3: records carry their model shape by dimension name

/// Records at full precision (the result file rounds; the journal must not, so that a resumed
/// sweep selects exactly as an uninterrupted one would), in the result file's record layout.
json records_json(const std::vector<record>& records) {
  json a = json::array();
  for (record r : records) {
    set_throughput(r, 0);  // a resumed run's ceiling is the first run's: the file takes it then
    a.push_back(record_json(r, record_precision::full));
  }
  return a;
}

std::vector<record> records_from(const json& a) {
  std::vector<record> out;
  for (const json& r : a) out.push_back(record_from_json(r));
  return out;
}

/// A verified line's outcome: the result file's verification block and its reason.
json outcome_json(const verification& v) {
  return {{"reason", v.reason}, {"verification", verification_json(v)}};
}

void apply_line(const json& j, journal_state& s) {
  if (j.contains("kk3tune_journal")) {
    if (j.at("kk3tune_journal") != k_journal_version) {
      throw std::runtime_error("journal version " + j.at("kk3tune_journal").dump() +
                               ", this kk3tune reads " + std::to_string(k_journal_version) +
                               ": start the sweep again without --resume");
    }
    s.key = j.at("key");
    s.seed = j.at("seed");
    s.timed = j.at("timed");
  } else if (j.contains("ceiling_tb_s")) {
    s.ceiling_tb_s = j.at("ceiling_tb_s").get<double>();
  } else if (j.contains("count")) {
    journal_count c;
    c.tokens = j.at("tokens");
    c.records = records_from(j.at("records"));
    c.carried = j.at("carried").get<std::vector<std::string>>();
    s.counts[j.at("count").get<std::string>()] = std::move(c);
  } else if (j.contains("verified")) {
    auto& m = s.verified[j.at("verified").get<std::string>()];
    for (const auto& [id, v] : j.at("variants").items())
      m[id] = verification_from_json(v.at("verification"), v.at("reason"));
  } else if (j.contains("unit")) {
    const std::string unit = j.at("unit");
    s.units[unit] = records_from(j.at("records"));
    s.unit_compiles[unit] = {j.at("compiles").get<std::size_t>(),
                             j.at("compile_failures").get<std::size_t>()};
  } else if (j.contains("fault")) {
    s.faults.push_back({j.at("fault"), j.at("tokens"), j.at("variant"),
                        status_from_text(j.at("status").get<std::string>()), j.at("reason")});
  } else {
    throw std::runtime_error("not a journal line");
  }
}

}  // namespace

std::string journal_header_line(const std::string& key, unsigned long long seed, bool timed) {
  return json{
      {"kk3tune_journal", k_journal_version}, {"key", key}, {"seed", seed}, {"timed", timed}}
      .dump();
}

std::string journal_ceiling_line(double tb_s) {
  return json{{"ceiling_tb_s", tb_s}}.dump();
}

std::string journal_count_line(const std::string& key, const journal_count& c) {
  return json{{"count", key},
              {"tokens", c.tokens},
              {"records", records_json(c.records)},
              {"carried", c.carried}}
      .dump();
}

std::string journal_verified_line(const std::string& shape,
                                  const std::map<std::string, verification>& variants) {
  json v = json::object();
  for (const auto& [id, outcome] : variants) v[id] = outcome_json(outcome);
  return json{{"verified", shape}, {"variants", v}}.dump();
}

std::string journal_unit_line(const std::string& unit, const std::vector<record>& records,
                              std::size_t compiles, std::size_t failures) {
  return json{{"unit", unit},
              {"records", records_json(records)},
              {"compiles", compiles},
              {"compile_failures", failures}}
      .dump();
}

std::string journal_fault_line(const journal_fault& f) {
  return json{{"fault", f.shape},
              {"tokens", f.tokens},
              {"variant", f.variant},
              {"status", to_text(f.status)},
              {"reason", f.reason}}
      .dump();
}

journal_state read_journal(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw error(error_kind::io, file.string() + ": cannot read the journal");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  journal_state s;
  std::size_t begin = 0, number = 0;
  while (begin < text.size()) {
    const std::size_t end = text.find('\n', begin);
    const bool last = end == std::string::npos;
    const std::string line = text.substr(begin, last ? std::string::npos : end - begin);
    ++number;
    begin = last ? text.size() : end + 1;
    if (line.empty()) continue;
    // Each line is written whole and then flushed: only the last one can be unfinished (no
    // newline yet) when the process was killed while writing it.
    json j;
    try {
      j = json::parse(line);
    } catch (const json::parse_error& e) {
      if (last) {
        ++s.truncated_lines;
        continue;
      }
      throw error(error_kind::io,
                  file.string() + ":" + std::to_string(number) + ": not JSON (" + e.what() + ")");
    }
    try {
      apply_line(j, s);
    } catch (const std::exception& e) {
      throw error(error_kind::io, file.string() + ":" + std::to_string(number) +
                                      ": not a kk3tune journal line (" + e.what() + ")");
    }
    if (number == 1 && s.key.empty())
      throw error(error_kind::io, file.string() + ":1: no journal header");
  }
  if (s.key.empty()) throw error(error_kind::io, file.string() + ": empty: no journal header");
  return s;
}

}  // namespace kk3::results
