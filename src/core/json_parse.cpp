#include "core/json_parse.hpp"

#include <vector>

#include "core/error.hpp"
#include "core/gzip.hpp"
#include "core/text.hpp"

namespace kk3 {
namespace {

using json = nlohmann::ordered_json;

/// A SAX handler that builds nothing and only follows where the parser is, so that a parse
/// error can be placed by JSON pointer. Run only after a failed parse (it costs a second pass).
class pointer_tracker : public nlohmann::json_sax<json> {
 public:
  std::string error_pointer, error_message;
  std::size_t error_byte = 0;

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override {
    value();
    m_frames.push_back({false, {}, false, 0});
    return true;
  }
  bool key(string_t& k) override {
    m_frames.back().key = k;
    m_frames.back().pending = true;
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override {
    value();
    m_frames.push_back({true, {}, false, 0});
    return true;
  }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    error_byte = position;
    error_pointer = pointer();
    error_message = ex.what();
    return false;
  }

 private:
  struct frame {
    bool is_array;
    std::string key;      ///< objects: the last key read
    bool pending;         ///< objects: the key's value has not been completed yet
    std::size_t started;  ///< arrays: the elements begun so far
  };
  std::vector<frame> m_frames;

  // A value begins (a scalar, or an object or array about to be opened).
  bool value() {
    if (m_frames.empty()) return true;
    frame& f = m_frames.back();
    if (f.is_array) {
      ++f.started;
    } else {
      f.pending = false;
    }
    return true;
  }
  bool close() {
    m_frames.pop_back();
    return true;
  }
  // Where the parser stands: enclosing containers are inside their last element or key; the
  // innermost one is at the element not yet begun, or inside the key whose value is pending.
  std::string pointer() const {
    std::string p;
    for (std::size_t i = 0; i < m_frames.size(); ++i) {
      const frame& f = m_frames[i];
      const bool innermost = i + 1 == m_frames.size();
      if (f.is_array) {
        const std::size_t index = innermost ? f.started : f.started - 1;
        p += "/" + std::to_string(index);
      } else if (!innermost || f.pending) {
        p += "/" + json_pointer_token(f.key);
      }
    }
    return p;
  }
};

// nlohmann's message without its "[json.exception.parse_error.101] " prefix.
std::string plain_message(const std::string& what) {
  const auto at = what.find("] ");
  return at == std::string::npos ? what : what.substr(at + 2);
}

}  // namespace

std::string json_pointer_token(const std::string& key) {
  return replace_chars(key, {{'~', "~0"}, {'/', "~1"}});
}

json parse_json_text(const std::filesystem::path& file, const std::string& raw) {
  const bool compressed = is_gzip(raw);
  const std::string decompressed = compressed ? gunzip(file, raw) : std::string();
  const std::string& bytes =
      compressed ? decompressed : raw;  // positions below are in the JSON text
  try {
    return json::parse(bytes);
  } catch (const json::exception&) {  // parse_error, or out_of_range: a number overflows a double
  }
  pointer_tracker tracker;
  json::sax_parse(bytes, &tracker);
  const bool truncated = tracker.error_byte >= bytes.size();
  const std::string at = tracker.error_pointer.empty() ? "/" : tracker.error_pointer;
  std::string what = truncated ? "not valid JSON: the file ends early (truncated?)"
                               : "not valid JSON at byte " + std::to_string(tracker.error_byte) +
                                     ": " + plain_message(tracker.error_message);
  if (bytes.empty()) what = "not valid JSON: the file is empty";
  throw error(error_kind::input, file.string() + ": " + at + ": " + what);
}

}  // namespace kk3
