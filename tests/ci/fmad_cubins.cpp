// Compiles every shipped variant of a family in the given modes twice with NVRTC, as kk3tune
// compiles it (the family's options, its mode's and knobs' macros), once with -fmad=true (NVRTC's
// and nvcc's default) and once with -fmad=false, and writes the two cubins side by side:
//   OUT/<mode>/<variant>.fmad1.cubin, OUT/<mode>/<variant>.fmad0.cubin
// tests/ci/fmad_independence.sh compares their SASS: equal SASS means the kernel's bits do not
// depend on whether the compiler may contract a multiply and an add into an FMA. A control kernel
// that writes `x * y + z` plainly goes to OUT/control/control.fmad{1,0}.cubin: its SASS differs.
// usage: kk3_fmad_cubins FAMILY MODE[,MODE...] ARCH OUT_DIR [MAX_VARIANTS]
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "families/registry.hpp"
#include "jit/batch.hpp"
#include "jit/requests.hpp"

namespace {

namespace fs = std::filesystem;

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    out.push_back(
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

int run(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s FAMILY MODE[,MODE...] ARCH OUT_DIR [MAX_VARIANTS]\n", argv[0]);
    return 2;
  }
  const std::string family = argv[1], arch = argv[3];
  const std::vector<std::string> modes = split_commas(argv[2]);
  const fs::path out = argv[4];
  const std::size_t max_variants = argc > 5 ? std::strtoul(argv[5], nullptr, 10) : 0;

  const fs::path kernel_dir = KK3_KERNEL_DIR, config_dir = KK3_CONFIG_DIR;
  const kk3::families::family* f = kk3::families::find_registered(family);
  if (!f) {
    std::fprintf(stderr, "no family %s\n", family.c_str());
    return 2;
  }
  kk3::families::family_space s = kk3::families::load_family_space(*f, config_dir);
  // The family's own -fmad option, if it has one, gives way to the two compared here.
  std::vector<std::string> options;
  for (const std::string& o : s.config.options) {
    if (o.rfind("-fmad", 0) == 0 || o.rfind("--fmad", 0) == 0) continue;
    options.push_back(o);
  }
  s.config.options = options;

  std::vector<kk3::jit::compile_request> requests;
  std::vector<fs::path> files;
  for (const std::string& name : modes) {
    const kk3::space::mode& m = kk3::space::find_mode(s.config, name);
    std::size_t taken = 0;
    for (const kk3::space::variant& v : s.variants) {
      if (v.test_only) continue;
      if (max_variants && taken == max_variants) break;
      ++taken;
      for (const char* fmad : {"true", "false"}) {
        kk3::jit::compile_request r = kk3::jit::make_request(s.config, m, v, arch, kernel_dir);
        r.options.push_back(std::string("-fmad=") + fmad);
        r.label += std::string(" -fmad=") + fmad;
        requests.push_back(std::move(r));
        files.push_back(out / name / (v.id + (fmad[0] == 't' ? ".fmad1.cubin" : ".fmad0.cubin")));
      }
    }
  }

  // The control: a multiply and an add written plainly, which -fmad=true contracts into one FMA
  // and -fmad=false does not, so its two cubins' SASS must differ (the comparison can see it).
  fs::create_directories(out / "control");
  std::ofstream(out / "control" / "control.cuh")
      << "__global__ void control_kernel(float* x) { x[0] = x[1] * x[2] + x[3]; }\n";
  for (const char* fmad : {"true", "false"}) {
    kk3::jit::compile_request r;
    r.label = std::string("control -fmad=") + fmad;
    r.source = out / "control" / "control.cuh";
    r.name_expression = "control_kernel";
    r.options = {std::string("-fmad=") + fmad};
    r.arch = arch;
    requests.push_back(std::move(r));
    files.push_back(out / "control" /
                    (fmad[0] == 't' ? "control.fmad1.cubin" : "control.fmad0.cubin"));
  }

  const auto engine = kk3::jit::make_jit_engine(kernel_dir, {}, /*no_cache=*/true);
  std::size_t done = 0;
  const auto results = engine->compile_all(requests, [&](const kk3::jit::compile_result&) {
    if (++done % 50 == 0) std::fprintf(stderr, "compiled %zu/%zu\n", done, requests.size());
  });
  int failed = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (!results[i].ok) {
      std::fprintf(stderr, "%s: compile failed\n%s\n", results[i].label.c_str(),
                   results[i].log.c_str());
      ++failed;
      continue;
    }
    fs::create_directories(files[i].parent_path());
    std::ofstream(files[i], std::ios::binary) << results[i].cubin;
  }
  std::printf("%zu cubins of %zu variants x %zu modes (%s, %s) and a control in %s\n",
              results.size() - failed, (requests.size() - 2) / 2 / modes.size(), modes.size(),
              family.c_str(), arch.c_str(), out.string().c_str());
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kk3_fmad_cubins: %s\n", e.what());
    return 2;
  }
}
