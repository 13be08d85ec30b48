#include "compare/comparison_text.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <sstream>

#include "core/text.hpp"
#include "results/codec.hpp"

namespace kk3::compare {
namespace {

using row = std::vector<std::string>;

const auto format = format_double;

std::string us_text(double us) {
  return format("%.3f", us);
}

/// Columns padded to their widest cell; the columns marked right-aligned are padded on the left.
void print_aligned(std::ostream& out, const std::vector<row>& rows,
                   const std::vector<bool>& right) {
  std::vector<std::size_t> width;
  for (const row& r : rows) {
    width.resize(std::max(width.size(), r.size()), 0);
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  for (const row& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      const std::string pad(width[i] - r[i].size(), ' ');
      const bool last = i + 1 == r.size();
      line += (i ? "  " : "") + (i < right.size() && right[i] ? pad + r[i]
                                 : last                       ? r[i]
                                                              : r[i] + pad);
    }
    out << line << '\n';
  }
}

std::string md_cell(const std::string& s) {
  return replace_chars(s, {{'|', "\\|"}, {'\n', " "}});
}

void print_markdown_table(std::ostream& out, const row& header, const std::vector<row>& rows,
                          const std::vector<bool>& right) {
  auto line = [&](const row& r) {
    out << '|';
    for (const auto& cell : r) out << ' ' << md_cell(cell) << " |";
    out << '\n';
  };
  line(header);
  out << '|';
  for (std::size_t i = 0; i < header.size(); ++i)
    out << (i < right.size() && right[i] ? " ---: |" : " --- |");
  out << '\n';
  for (const row& r : rows) line(r);
}

const row k_timing_header = {"family",  "mode",   "shape",  "variant",
                             "BASE us", "NEW us", "change", "test"};
const std::vector<bool> k_timing_right = {false, false, false, false, true, true, true, false};

row timing_row(const record_comparison& r) {
  if (!r.not_comparable.empty()) {
    return {r.id.family, r.id.mode, r.id.shape(), r.id.variant,
            "-",         "-",       "-",          "not comparable: " + r.not_comparable};
  }
  if (!r.timing) {
    return {r.id.family,
            r.id.mode,
            r.id.shape(),
            r.id.variant,
            "-",
            "-",
            "-",
            "not timed in both (" + std::string(results::to_text(r.base_status)) + " / " +
                results::to_text(r.new_status) + ")"};
  }
  const timing_comparison& t = *r.timing;
  return {r.id.family,
          r.id.mode,
          r.id.shape(),
          r.id.variant,
          us_text(t.base_median_us),
          us_text(t.new_median_us),
          percent_text(t.effect),
          test_text(t)};
}

/// The groups of matched records, in the order shown.
struct group {
  const char* title;
  std::function<bool(const record_comparison&)> member;
  bool regressions;    ///< listed up to the regression limit
  bool only_with_all;  ///< listed only with --all (unchanged records)
};

std::vector<group> groups() {
  auto is = [](verdict v) {
    return [v](const record_comparison& r) { return r.timing && r.timing->result == v; };
  };
  return {
      {"Slower", is(verdict::slower), true, false},
      {"Faster", is(verdict::faster), false, false},
      {"Noisy (changed beyond the threshold, not significant)", is(verdict::noisy), false, false},
      {"Same", is(verdict::same), false, true},
      {"Not comparable (timed under different objectives; not a regression)",
       [](const record_comparison& r) { return !r.not_comparable.empty(); }, false, false},
      {"Not timed in both",
       [](const record_comparison& r) { return !r.timing && r.not_comparable.empty(); }, false,
       true}};
}

std::string gpu_text(const file_summary& s) {
  if (s.gpu_name.empty()) return "no GPU";
  return s.gpu_name + (s.gpu_arch.empty() ? "" : " (" + s.gpu_arch + ")");
}

std::string tool_text(const file_summary& s) {
  std::string t = "kk3tune " + (s.tool_version.empty() ? std::string("?") : s.tool_version);
  if (!s.git_revision.empty()) t += " (git " + s.git_revision + ")";
  return t;
}

/// The machine's figures: copy ceiling and empty-kernel launch, so a different machine shows.
std::string figures_text(const file_summary& s) {
  const std::string ceiling = s.copy_ceiling_tb_s > 0
                                  ? format("%.3f", s.copy_ceiling_tb_s) + " TB/s copy"
                                  : "copy ceiling ?";
  const std::string empty = s.empty_kernel_us > 0
                                ? format("%.3f", s.empty_kernel_us) + " us empty kernel"
                                : "empty kernel ?";
  return ceiling + ", " + empty;
}

std::string records_text(const file_summary& s) {
  return std::to_string(s.records) + " records, " + std::to_string(s.timed_records) + " timed";
}

std::string settings_text(const comparison& c) {
  if (c.shipped_verdict) {
    return "the verdict is on what ships: at each token count of each dispatch table, NEW's winner "
           "against BASE's, slower "
           "or faster beyond the threshold " +
           format("%g", c.options.timing.threshold * 100) + "% and " +
           format("%g", c.rule.noise_sigmas) +
           " combined standard errors (each at least the plans' noise floor, " +
           format("%g", c.rule.noise_floor * 100) + "%); and on verification";
  }
  return "threshold " + format("%g", c.options.timing.threshold * 100) + "%, alpha " +
         format("%g", c.options.timing.alpha) +
         ": Mann-Whitney U on the raw samples, or median +- 2 standard errors where the samples "
         "cannot be used";
}

row verification_header() {
  return {"family", "mode", "shape", "variant", "BASE", "NEW", "detail"};
}
row verification_row(const verification_regression& v) {
  return {v.id.family,
          v.id.mode,
          v.id.shape(),
          v.id.variant,
          results::to_text(v.base_status),
          results::to_text(v.new_status),
          v.detail};
}
row one_sided_header() {
  return {"family", "mode", "shape", "variant", "status"};
}
row one_sided_row(const one_sided_record& r) {
  return {r.id.family, r.id.mode, r.id.shape(), r.id.variant, results::to_text(r.status)};
}
row dispatch_header() {
  return {"table", "tokens", "BASE", "NEW"};
}
row dispatch_row(const dispatch_change& d) {
  return {d.entry, d.tokens, d.base, d.next};
}

std::string more_text(std::size_t left) {
  return "... and " + std::to_string(left) + " more (--all lists them)";
}

/// One part of the output: a titled table, or a line of text.
struct section {
  std::string title;
  row header;
  std::vector<row> rows;
  std::vector<bool> right;
  std::size_t left = 0;  ///< rows not listed
  std::string text;      ///< a line instead of a table
};

row count_header() {
  return {"table", "tokens", "BASE winner", "BASE us", "NEW winner", "NEW us", "change", "noise"};
}
const std::vector<bool> k_count_right = {false, true, false, true, false, true, true, true};

row count_row(const count_comparison& k) {
  auto us = [](double v) { return v > 0 ? us_text(v) : std::string("-"); };
  const bool timed = k.base_median_us > 0 && k.new_median_us > 0;
  return {k.table,
          "T" + std::to_string(k.tokens),
          k.base_winner.empty() ? "(none)" : k.base_winner,
          us(k.base_median_us),
          k.new_winner.empty() ? "(none)"
          : k.winner_changed() ? k.new_winner
                               : "= BASE",
          us(k.new_median_us),
          timed ? percent_text(k.effect) : "-",
          timed ? format("%+.1f sigma", k.sigmas) : to_string(k.result)};
}

/// What ships, count by count: the regressions, the gains, the changed winners; the rest only
/// with --all.
void shipped_sections(const comparison& c, const listing_options& listing,
                      std::vector<section>& out) {
  struct part {
    const char* title;
    std::function<bool(const count_comparison&)> member;
    bool regressions, only_with_all;
  };
  auto is = [](count_verdict v) {
    return [v](const count_comparison& k) { return k.result == v; };
  };
  const std::vector<part> parts = {
      {"Slower at a token count: what ships is slower (regressions)", is(count_verdict::slower),
       true, false},
      {"Lost: no qualified winner any more (regressions)", is(count_verdict::lost), true, false},
      {"Faster at a token count", is(count_verdict::faster), false, false},
      {"Winner changed, time the same within the threshold and the noise",
       [](const count_comparison& k) {
         return k.result == count_verdict::same && k.winner_changed();
       },
       false, false},
      {"Gained: a winner where BASE had none", is(count_verdict::gained), false, false},
      {"Not timed comparably", is(count_verdict::untimed), false, false},
      {"Same winner, same time",
       [](const count_comparison& k) {
         return k.result == count_verdict::same && !k.winner_changed();
       },
       false, true}};
  for (const part& p : parts) {
    if (p.only_with_all && !listing.all) continue;
    section s{p.title, count_header(), {}, k_count_right, 0, {}};
    std::size_t total = 0;
    for (const auto& k : c.shipped) {
      if (!p.member(k)) continue;
      ++total;
      const std::size_t limit = p.regressions ? listing.regression_limit : listing.list_limit;
      if (listing.all || s.rows.size() < limit) s.rows.push_back(count_row(k));
    }
    s.title += " (" + std::to_string(total) + ")";
    s.left = total - s.rows.size();
    out.push_back(std::move(s));
  }
  if (!listing.all) {
    const shipped_counts& k = c.shipped_totals;
    std::size_t same_winner = 0;
    for (const auto& x : c.shipped)
      same_winner += x.result == count_verdict::same && !x.winner_changed();
    section s;
    s.text = std::to_string(same_winner) + " token count" + (same_winner == 1 ? "" : "s") +
             " with the same winner and time" +
             (k.only_in_base + k.only_in_new
                  ? ", " + std::to_string(k.only_in_base) + " swept only in BASE and " +
                        std::to_string(k.only_in_new) + " only in NEW"
                  : std::string()) +
             "; the records (" + std::to_string(c.base.records) + " in BASE, " +
             std::to_string(c.next.records) +
             " in NEW: screening rounds, variants that win nothing) are not listed: --all lists "
             "them one by one";
    out.push_back(std::move(s));
  }
}

/// What both formats show, in order.
std::vector<section> sections(const comparison& c, const listing_options& listing) {
  std::vector<section> out;
  auto plural = [](std::size_t n, const char* word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
  };

  section verification{"Verification regressions (" + std::to_string(c.verification.size()) + ")",
                       verification_header(),
                       {},
                       {},
                       0,
                       {}};
  for (const auto& v : c.verification) {
    if (listing.all || verification.rows.size() < listing.regression_limit) {
      verification.rows.push_back(verification_row(v));
    }
  }
  verification.left = c.verification.size() - verification.rows.size();
  out.push_back(std::move(verification));

  if (c.shipped_verdict) {
    shipped_sections(c, listing, out);
    if (!listing.all) return out;
  }
  for (const group& g : groups()) {
    if (g.only_with_all && !listing.all) continue;
    section s{std::string(c.shipped_verdict ? "Records: " : "") + g.title,
              k_timing_header,
              {},
              k_timing_right,
              0,
              {}};
    std::size_t total = 0;
    for (const auto& r : c.records) {
      if (!g.member(r)) continue;
      ++total;
      const std::size_t limit = g.regressions ? listing.regression_limit : listing.list_limit;
      if (listing.all || s.rows.size() < limit) s.rows.push_back(timing_row(r));
    }
    s.title += " (" + std::to_string(total) + ")";
    s.left = total - s.rows.size();
    out.push_back(std::move(s));
  }
  if (!listing.all && (c.counts.same || c.counts.untimed)) {
    section s;
    s.text = std::to_string(c.counts.same) + " same, " + std::to_string(c.counts.untimed) +
             " not timed in both (not listed; --all lists them)";
    out.push_back(std::move(s));
  }

  section dispatch{"Dispatch changes (" + plural(c.counts.dispatch_entries_changed, "table") + ")",
                   dispatch_header(),
                   {},
                   {},
                   0,
                   {}};
  for (const auto& d : c.dispatch) dispatch.rows.push_back(dispatch_row(d));
  out.push_back(std::move(dispatch));

  for (const auto* side : {&c.only_in_base, &c.only_in_new}) {
    section s{std::string(side == &c.only_in_base ? "Only in BASE" : "Only in NEW") + " (" +
                  std::to_string(side->size()) + ", not a regression)",
              one_sided_header(),
              {},
              {},
              0,
              {}};
    for (const auto& r : *side) {
      if (listing.all || s.rows.size() < listing.list_limit) s.rows.push_back(one_sided_row(r));
    }
    s.left = side->size() - s.rows.size();
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

std::string percent_text(double fraction) {
  return format("%+.1f%%", fraction * 100);
}

std::string test_text(const timing_comparison& t) {
  if (t.test == test_kind::mann_whitney) return "U p=" + format("%.2g", t.p_value);
  return std::string("intervals ") + (t.significant ? "disjoint" : "overlap") +
         (t.test_note.empty() ? "" : " (" + t.test_note + ")");
}

// Each section that has something to say: a sentence (ended by `end`), or its table through
// `table`; then the notes under `notes_heading`.
template <class Table>
void print_sections(std::ostream& out, const comparison& c, const listing_options& listing,
                    const char* end, const char* notes_heading, Table table) {
  for (const section& s : sections(c, listing)) {
    if (!s.text.empty()) {
      out << "\n" << s.text << end << "\n";
    } else if (!s.rows.empty()) {
      table(s);
    }
  }
  std::vector<std::string> notes = c.notes;
  if (!c.shipped_verdict || listing.all)
    notes.insert(notes.end(), c.record_notes.begin(), c.record_notes.end());
  if (notes.empty()) return;
  out << notes_heading;
  for (const auto& n : notes) out << "- " << n << "\n";
}

std::string format_table(const comparison& c, const listing_options& listing) {
  std::ostringstream out;
  out << "kk3tune compare\n";
  print_aligned(out,
                {{"BASE", c.base.file, c.base.kind, gpu_text(c.base), tool_text(c.base),
                  c.base.utc_time, records_text(c.base), figures_text(c.base)},
                 {"NEW", c.next.file, c.next.kind, gpu_text(c.next), tool_text(c.next),
                  c.next.utc_time, records_text(c.next), figures_text(c.next)}},
                {});
  out << settings_text(c) << "\n";
  print_sections(out, c, listing, "", "\nNotes\n", [&](const section& s) {
    out << "\n" << s.title << "\n";
    std::vector<row> rows{s.header};
    rows.insert(rows.end(), s.rows.begin(), s.rows.end());
    print_aligned(out, rows, s.right);
    if (s.left) out << more_text(s.left) << "\n";
  });
  out << "\ncompare: " << c.summary_line() << "\n";
  return out.str();
}

std::string format_markdown(const comparison& c, const listing_options& listing) {
  std::ostringstream out;
  out << "## kk3tune compare: "
      << (c.regression()       ? "REGRESSION"
          : c.exit_code() == 0 ? "no regression"
                               : "no verdict")
      << "\n\n";
  out << c.summary_line() << "\n\n";
  print_markdown_table(
      out, {"", "file", "kind", "GPU", "tool", "time", "records", "machine"},
      {{"BASE", "`" + c.base.file + "`", c.base.kind, gpu_text(c.base), tool_text(c.base),
        c.base.utc_time, records_text(c.base), figures_text(c.base)},
       {"NEW", "`" + c.next.file + "`", c.next.kind, gpu_text(c.next), tool_text(c.next),
        c.next.utc_time, records_text(c.next), figures_text(c.next)}},
      {});
  out << "\n" << settings_text(c) << ".\n";
  print_sections(out, c, listing, ".", "\n### Notes\n\n", [&](const section& s) {
    out << "\n### " << s.title << "\n\n";
    print_markdown_table(out, s.header, s.rows, s.right);
    if (s.left) out << "\n" << more_text(s.left) << "\n";
  });
  return out.str();
}

}  // namespace kk3::compare
