#pragma once
// Small string and file helpers shared by every stage.
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kk3 {

/// Splits on a delimiter, trimming blanks; empty items are dropped.
std::vector<std::string> split(std::string_view text, char delimiter);
/// Splits on a delimiter, trimming blanks, keeping empty items: "1,,2" gives "1", "", "2", and
/// "1," gives "1", "" (for a list that must refuse an empty element where split would drop it).
std::vector<std::string> split_keeping_empty(std::string_view text, char delimiter);
/// Removes leading and trailing white space.
std::string trim(std::string_view text);
/// Joins with a separator.
std::string join(const std::vector<std::string>& items, std::string_view separator);

/// A percentage written "2%" or "2" (a bare number is percent too): the fraction (0.02), or
/// nothing when the text is neither.
[[nodiscard]] std::optional<double> parse_percent(std::string_view text);

/// Edits (insert, delete, replace one character) that turn `a` into `b` (Levenshtein).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate `word` most likely misspells, for a "did you mean": one that begins with `word`
/// (of two characters or more), else the nearest within two edits (the first of equals); empty
/// when none is that near.
[[nodiscard]] std::string nearest_word(std::string_view word,
                                       const std::vector<std::string>& candidates);

/// A number as people write it: no trailing zeros, at most 6 significant digits ("5", "0.02",
/// "227.5").
std::string format_number(double x);

/// One number through a printf format ("%.3f", "%+.1f"): what snprintf writes, up to 63 bytes.
std::string format_double(const char* fmt, double x);

/// The whole of `text` as a decimal integer (an optional sign, then digits); nullopt for anything
/// else, including a number beyond 64 bits.
[[nodiscard]] std::optional<long long> parse_integer(const std::string& text);

/// `text` with each character that `replacements` lists replaced by its string.
std::string replace_chars(std::string_view text,
                          std::initializer_list<std::pair<char, std::string_view>> replacements);

/// Reads a whole file; throws error(io) naming the file.
[[nodiscard]] std::string read_file(const std::filesystem::path& file);
/// Writes a file atomically (a temporary beside it, then rename); throws error(io).
void write_file_atomic(const std::filesystem::path& file, std::string_view bytes);

/// Checks, before any work, that a file can be written into `folder`: it is a folder that takes
/// a new file (tried by creating and removing an empty one, which also catches read-only file
/// systems). With `may_create`, a missing folder is fine when its nearest existing parent takes
/// one. `what` starts the message, e.g. "--out results/x.json". Throws error(io).
void require_writable_folder(const std::filesystem::path& folder, const std::string& what,
                             bool may_create = false);

/// Checks, before any work, that `file` can be written as an output: its folder takes a new
/// file and it is not a folder itself, so a run does not fail at its end. (That it is no input
/// and no other output is core/file_roles.hpp's check.) `what` starts the message, e.g.
/// "--html x.html". Throws error(usage) for a folder, error(io) else.
void require_output_file(const std::filesystem::path& file, const std::string& what);

}  // namespace kk3
