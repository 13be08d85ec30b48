// No command writes over one of its inputs or over two of its own outputs at once
// (core/file_roles.hpp): the check itself, then every subcommand that writes a file, one row per
// pair of an output option and an input (or another output) option. Each row gives one file two
// roles; the command must exit 2 before any work, name both options, and leave the file's bytes
// as they were. The driver is hidden, so the rows behave the same with or without a GPU.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/file_roles.hpp"
#include "core/text.hpp"
#include "support/test_support.hpp"

namespace kk3 {
namespace {

namespace fs = std::filesystem;
using test::contains;
using test::k_no_driver;
using test::run_kk3tune;

TEST(file_roles, same_file_sees_through_links_dot_dot_and_hard_links) {
  test::temp_dir dir;
  const fs::path a = dir.path() / "a.json";
  test::write_text(a, "{}");
  fs::create_directories(dir.path() / "sub");
  fs::create_symlink(a, dir.path() / "soft.json");
  fs::create_hard_link(a, dir.path() / "hard.json");
  EXPECT_TRUE(same_file(a, dir.path() / "soft.json"));
  EXPECT_TRUE(same_file(a, dir.path() / "hard.json"));
  EXPECT_TRUE(same_file(a, dir.path() / "sub" / ".." / "a.json"));
  EXPECT_FALSE(same_file(a, dir.path() / "b.json"));
  // Neither exists yet: the same path once resolved is the same file.
  EXPECT_TRUE(same_file(dir.path() / "new.json", dir.path() / "sub" / ".." / "new.json"));
  EXPECT_FALSE(same_file(dir.path() / "new.json", dir.path() / "new2.json"));
}

TEST(file_roles, check_names_both_options_and_passes_distinct_files) {
  test::temp_dir dir;
  const fs::path in = dir.path() / "in.json";
  test::write_text(in, "{}");
  file_roles ok;
  ok.input("--config", in);
  ok.output("--out", dir.path() / "out.json");
  ok.output("--csv", dir.path() / "out.csv");
  EXPECT_NO_THROW(ok.check());

  file_roles clash;
  clash.input("--config", in);
  clash.output("--out", in);
  try {
    clash.check();
    FAIL() << "no clash reported";
  } catch (const error& e) {
    EXPECT_EQ(e.kind(), error_kind::usage);
    // the flag, then its file; then what the file is to the other role (issue 44, item 9)
    EXPECT_TRUE(contains(e.what(), "--out " + in.string() +
                                       " would overwrite the file of --config (" + in.string() +
                                       ", the same file): writing it would destroy "
                                       "an input"))
        << e.what();
  }
  file_roles outputs;
  outputs.output("--html", dir.path() / "r.x");
  outputs.output("--csv", dir.path() / "r.x");
  EXPECT_THROW(outputs.check(), error);
  // a file of a folder given by a flag, and an argument without a flag
  const fs::path folder = dir.path() / "configs";
  fs::create_directories(folder);
  test::write_text(folder / "attn_res.json", "{}");
  file_roles in_folder;
  in_folder.input_folder("--config-dir", folder);
  in_folder.input("results", in);
  in_folder.output("--out", folder / "attn_res.json");
  in_folder.output("--csv", in);
  try {
    in_folder.check();
    FAIL() << "no clash reported";
  } catch (const error& e) {
    EXPECT_TRUE(contains(e.what(), "--out " + (folder / "attn_res.json").string() +
                                       " would overwrite a file of the --config-dir folder (" +
                                       (folder / "attn_res.json").string() + ", the same file)"))
        << e.what();
  }
  file_roles positional;
  positional.input("results", in);
  positional.output("--csv", in);
  try {
    positional.check();
    FAIL() << "no clash reported";
  } catch (const error& e) {
    EXPECT_TRUE(contains(e.what(), "--csv " + in.string() + " would overwrite the results file (" +
                                       in.string() + ", the same file)"))
        << e.what();
  }
}

/// One row: a subcommand's arguments with one file in two roles. `setup` makes the files in the
/// folder and returns the file whose bytes must not change; `args` builds the command line.
struct clash_row {
  std::string name;
  std::function<fs::path(const fs::path&)> setup;
  std::function<std::vector<std::string>(const fs::path&)> args;
  std::string first_option, second_option;
};

/// A timed sweep (the committed one) as a file in `dir` named `name`.
fs::path timed_sweep(const fs::path& dir, const std::string& name) {
  const fs::path file = dir / name;
  fs::create_directories(file.parent_path());
  fs::copy_file(fs::path(KK3_RESULTS_DIR) / "h200" / "sweep-v5-2026-12-06" / "sweep.json.gz", file);
  return file;
}

/// The default plan as a file in `dir`.
fs::path plan_copy(const fs::path& dir, const std::string& name) {
  fs::copy_file(fs::path(KK3_CONFIG_DIR) / "default.json", dir / name);
  return dir / name;
}

std::vector<clash_row> clash_rows() {
  const std::vector<std::string> small = {"--family", "mla_decode_epilogue", "--mode", "bf16"};
  auto sweep = [small](std::vector<std::string> more) {
    std::vector<std::string> a = {"sweep"};
    a.insert(a.end(), small.begin(), small.end());
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  auto s = [](const fs::path& p) { return p.string(); };
  return {
      {"sweep --config X --out X", [](const fs::path& d) { return plan_copy(d, "p.json"); },
       [=](const fs::path& d) {
         return sweep({"--config", s(d / "p.json"), "--out", s(d / "p.json")});
       },
       "--out", "--config"},
      {"sweep --config X --csv X", [](const fs::path& d) { return plan_copy(d, "p.json"); },
       [=](const fs::path& d) {
         return sweep(
             {"--config", s(d / "p.json"), "--out", s(d / "o.json"), "--csv", s(d / "p.json")});
       },
       "--csv", "--config"},
      {"sweep --baseline X --out X", [](const fs::path& d) { return timed_sweep(d, "b.json"); },
       [=](const fs::path& d) {
         return sweep({"--baseline", s(d / "b.json"), "--out", s(d / "b.json")});
       },
       "--out", "--baseline"},
      {"sweep --baseline X --csv X", [](const fs::path& d) { return timed_sweep(d, "b.json"); },
       [=](const fs::path& d) {
         return sweep(
             {"--baseline", s(d / "b.json"), "--out", s(d / "o.json"), "--csv", s(d / "b.json")});
       },
       "--csv", "--baseline"},
      {"sweep --baseline OUT.journal --out OUT",
       [](const fs::path& d) { return timed_sweep(d, "o.json.journal"); },
       [=](const fs::path& d) {
         return sweep({"--baseline", s(d / "o.json.journal"), "--out", s(d / "o.json")});
       },
       "--out's journal", "--baseline"},
      {"sweep --baseline X --out link-to-X (symbolic link)",
       [](const fs::path& d) {
         const fs::path b = timed_sweep(d, "b.json");
         fs::create_symlink(b, d / "link.json");
         return b;
       },
       [=](const fs::path& d) {
         return sweep({"--baseline", s(d / "b.json"), "--out", s(d / "link.json")});
       },
       "--out", "--baseline"},
      {"sweep --baseline X --out hard-link-to-X",
       [](const fs::path& d) {
         const fs::path b = timed_sweep(d, "b.json");
         fs::create_hard_link(b, d / "hard.json");
         return b;
       },
       [=](const fs::path& d) {
         return sweep({"--baseline", s(d / "b.json"), "--out", s(d / "hard.json")});
       },
       "--out", "--baseline"},
      {"sweep --config X --out sub/../X",
       [](const fs::path& d) {
         fs::create_directories(d / "sub");
         return plan_copy(d, "p.json");
       },
       [=](const fs::path& d) {
         return sweep({"--config", s(d / "p.json"), "--out", s(d / "sub" / ".." / "p.json")});
       },
       "--out", "--config"},
      {"sweep --out X --csv X", [](const fs::path& d) { return d / "o.json"; },
       [=](const fs::path& d) {
         return sweep({"--out", s(d / "o.json"), "--csv", s(d / "o.json")});
       },
       "--csv", "--out"},
      {"sweep --out into the kernel folder",
       [](const fs::path& d) {
         fs::copy(KK3_KERNEL_DIR, d / "kernels", fs::copy_options::recursive);
         return d / "kernels" / "mla_decode_epilogue.cuh";
       },
       [=](const fs::path& d) {
         std::vector<std::string> a = {"--kernel-dir", s(d / "kernels")};
         for (auto& x : sweep({"--out", s(d / "kernels" / "mla_decode_epilogue.cuh")}))
           a.push_back(x);
         return a;
       },
       "--out", "--kernel-dir"},
      {"sweep --out into the config folder",
       [](const fs::path& d) {
         fs::copy(KK3_CONFIG_DIR, d / "configs", fs::copy_options::recursive);
         return d / "configs" / "mla_decode_epilogue.json";
       },
       [=](const fs::path& d) {
         std::vector<std::string> a = {"--config-dir", s(d / "configs")};
         for (auto& x : sweep({"--out", s(d / "configs" / "mla_decode_epilogue.json")}))
           a.push_back(x);
         return a;
       },
       "--out", "--config-dir"},
      {"report X --html X", [](const fs::path& d) { return timed_sweep(d, "r.json"); },
       [=](const fs::path& d) {
         return std::vector<std::string>{"report", s(d / "r.json"), "--html", s(d / "r.json")};
       },
       "--html", "results"},
      {"report X --csv X", [](const fs::path& d) { return timed_sweep(d, "r.json"); },
       [=](const fs::path& d) {
         return std::vector<std::string>{"report", s(d / "r.json"), "--csv", s(d / "r.json")};
       },
       "--csv", "results"},
      {"report --html Y --csv Y",
       [](const fs::path& d) {
         timed_sweep(d, "r.json");
         return d / "page.x";
       },
       [=](const fs::path& d) {
         return std::vector<std::string>{"report",        s(d / "r.json"), "--html",
                                         s(d / "page.x"), "--csv",         s(d / "page.x")};
       },
       "--csv", "--html"},
      {"merge X --out X", [](const fs::path& d) { return timed_sweep(d, "m.json"); },
       [=](const fs::path& d) {
         return std::vector<std::string>{"merge", s(d / "m.json"), "--out", s(d / "m.json")};
       },
       "--out", "results"},
      {"emit X --out DIR, X being DIR's header",
       [](const fs::path& d) { return timed_sweep(d, "inc/kk3tune/dispatch/attn_res.h"); },
       [=](const fs::path& d) {
         return std::vector<std::string>{"emit", s(d / "inc/kk3tune/dispatch/attn_res.h"), "--out",
                                         s(d / "inc")};
       },
       "--out", "results"},
      {"sweep --baseline OUT.partial --out OUT",
       [](const fs::path& d) { return timed_sweep(d, "o.json.partial"); },
       [=](const fs::path& d) {
         return sweep({"--baseline", s(d / "o.json.partial"), "--out", s(d / "o.json")});
       },
       "--out's partial result", "--baseline"},
      {"sweep --gpus: --baseline is a GPU's part",
       [](const fs::path& d) { return timed_sweep(d, "o.json.gpu1.json"); },
       [=](const fs::path& d) {
         return sweep(
             {"--baseline", s(d / "o.json.gpu1.json"), "--out", s(d / "o.json"), "--gpus", "0,1"});
       },
       "--gpus' part", "--baseline"},
      {"sweep --gpus: --csv is the claims file",
       [](const fs::path& d) { return d / "o.json.claims"; },
       [=](const fs::path& d) {
         return sweep({"--out", s(d / "o.json"), "--csv", s(d / "o.json.claims"), "--gpus", "0,1"});
       },
       "--gpus' claims", "--csv"},
      {"merge A B --out B (the second input)",
       [](const fs::path& d) {
         timed_sweep(d, "a.json");
         return timed_sweep(d, "b.json");
       },
       [=](const fs::path& d) {
         return std::vector<std::string>{"merge", s(d / "a.json"), s(d / "b.json"), "--out",
                                         s(d / "b.json")};
       },
       "--out", "results"},
      {"report X --csv hard-link-to-X",
       [](const fs::path& d) {
         const fs::path r = timed_sweep(d, "r.json");
         fs::create_hard_link(r, d / "r.csv");
         return r;
       },
       [=](const fs::path& d) {
         return std::vector<std::string>{"report", s(d / "r.json"), "--csv", s(d / "r.csv")};
       },
       "--csv", "results"},
      {"time --json into the kernel folder",
       [](const fs::path& d) {
         fs::copy(KK3_KERNEL_DIR, d / "kernels", fs::copy_options::recursive);
         return d / "kernels" / "attn_res.cuh";
       },
       [=](const fs::path& d) {
         return std::vector<std::string>{"--kernel-dir",
                                         s(d / "kernels"),
                                         "time",
                                         "--family",
                                         "attn_res",
                                         "--json",
                                         s(d / "kernels" / "attn_res.cuh")};
       },
       "--json", "--kernel-dir"},
      {"time --json into the config folder",
       [](const fs::path& d) {
         fs::copy(KK3_CONFIG_DIR, d / "configs", fs::copy_options::recursive);
         return d / "configs" / "attn_res.json";
       },
       [=](const fs::path& d) {
         return std::vector<std::string>{"--config-dir",
                                         s(d / "configs"),
                                         "time",
                                         "--family",
                                         "attn_res",
                                         "--json",
                                         s(d / "configs" / "attn_res.json")};
       },
       "--json", "--config-dir"},
  };
}

TEST(file_roles, no_subcommand_writes_over_an_input_or_another_output) {
  for (const clash_row& row : clash_rows()) {
    SCOPED_TRACE(row.name);
    test::temp_dir dir;
    const fs::path guarded = row.setup(dir.path());
    std::error_code ec;
    const bool existed = fs::exists(guarded, ec);
    const std::string before = existed ? read_file(guarded) : "";
    const std::vector<fs::path> files_before = [&] {
      std::vector<fs::path> v;
      for (const auto& e : fs::recursive_directory_iterator(dir.path())) v.push_back(e.path());
      return v;
    }();
    const auto r = run_kk3tune(row.args(dir.path()), {k_no_driver});
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, row.first_option)) << r.output;
    EXPECT_TRUE(contains(r.output, row.second_option)) << r.output;
    EXPECT_TRUE(contains(r.output, "the same file")) << r.output;
    if (existed) {
      EXPECT_EQ(read_file(guarded), before);
    } else {
      EXPECT_FALSE(fs::exists(guarded, ec)) << "written: " << guarded;
    }
    // Nothing new: no output, no journal, no partial file.
    std::size_t after = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir.path())) after += !e.path().empty();
    EXPECT_EQ(after, files_before.size()) << r.output;
  }
}

TEST(file_roles, a_missing_kernel_folder_is_one_line_and_exit_2) {
  test::temp_dir dir;
  for (const auto& args : {std::vector<std::string>{"--kernel-dir", "/nonexistent-kk3", "compile",
                                                    "--arch", "sm_90a", "--family", "copy_example"},
                           std::vector<std::string>{"--kernel-dir", "/nonexistent-kk3", "sweep",
                                                    "--out", (dir.path() / "kd.json").string()}}) {
    const auto r = run_kk3tune(args, {k_no_driver});
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "/nonexistent-kk3: no such folder")) << r.output;
    EXPECT_LE(split(r.output, '\n').size(), 2u) << r.output;
  }
  EXPECT_FALSE(fs::exists(dir.path() / "kd.json"));
  // A folder without the family's kernel source names the file.
  fs::create_directories(dir.path() / "empty");
  const auto r = run_kk3tune({"--kernel-dir", (dir.path() / "empty").string(), "compile", "--arch",
                              "sm_90a", "--family", "attn_res"},
                             {k_no_driver});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "attn_res.cuh: missing: the kernel source of family attn_res"))
      << r.output;
}

}  // namespace
}  // namespace kk3
