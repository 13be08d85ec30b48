#include "verify/verifier.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "core/error.hpp"
#include "core/nvtx.hpp"
#include "core/text.hpp"
#include "core/watch.hpp"
#include "device/check.hpp"
#include "device/launch.hpp"
#include "families/registry.hpp"
#include "families/tensor_workspace.hpp"
#include "jit/loaded_kernels.hpp"
#include "jit/requests.hpp"
#include "verify/npy.hpp"
#include "verify/tolerance.hpp"
#include "verify/unlaunchable.hpp"

namespace kk3::verify {

void accuracy::merge(const accuracy& a) {
  exact_fraction = std::min(exact_fraction, a.exact_fraction);
  max_ulps = std::max(max_ulps, a.max_ulps);
  worst_ratio = std::max(worst_ratio, a.worst_ratio);
}

std::string shape_name(const families::shape& s) {
  std::string n = "T" + std::to_string(s.tokens);
  n += families::shape_suffix(s.model);
  if (s.strided) n += "-strided";
  return n;
}

namespace {

std::string hex_element(const families::tensor& t, std::size_t index) {
  const std::size_t width = families::dtype_bytes(t.type);
  std::string out = "0x";
  char buf[4];
  for (std::size_t b = width; b-- > 0;) {  // little-endian element, printed most significant first
    std::snprintf(buf, sizeof buf, "%02x", t.bytes[index * width + b]);
    out += buf;
  }
  return out;
}

/// The first element of `got` that differs from `want` in the tensors `which` selects.
template <class Select>
std::optional<mismatch> compare(const families::problem& want, const families::problem& got,
                                Select which, const char* against) {
  for (const families::tensor& w : want.tensors) {
    if (!which(w)) continue;
    const families::tensor& g = got.at(w.name);
    if (std::memcmp(w.bytes.data(), g.bytes.data(), w.bytes.size()) == 0) continue;
    const std::size_t width = families::dtype_bytes(w.type);
    for (std::size_t i = 0; i < w.elements(); ++i) {
      if (std::memcmp(w.bytes.data() + i * width, g.bytes.data() + i * width, width) != 0) {
        return mismatch{against,           w.name, static_cast<long long>(i), hex_element(w, i),
                        hex_element(g, i), {}};
      }
    }
  }
  return std::nullopt;
}

bool is_written(const families::tensor& t) {
  return t.use != families::role::input;
}
bool is_written_exact(const families::tensor& t) {
  return is_written(t) && !t.bounded();
}

/// The bound check (SPEC 1.3, verify/tolerance.hpp) of the written tensors the CPU reference
/// gave x and m for: updates the record's figures and returns the first element beyond the
/// bound, or the first inexact one when fewer than 99.9% are exact.
std::optional<mismatch> compare_within_bound(const families::problem& want,
                                             const families::problem& got, accuracy& r) {
  for (const families::tensor& w : want.tensors) {
    if (!is_written(w) || !w.bounded()) continue;
    const families::tensor& g = got.at(w.name);
    if (w.type != families::dtype::bf16 || w.exact_value.size() != w.elements() ||
        w.term_magnitude.size() != w.elements()) {
      throw error(
          error_kind::verify,
          w.name + ": the CPU reference's bound needs a bf16 tensor and one x and m per element");
    }
    const bound_figures f = bound_check(g.data<std::uint16_t>(), w.exact_value.data(),
                                        w.term_magnitude.data(), w.elements());
    r.merge({f.exact_share(), f.max_ulps, f.worst_ratio});
    auto at = [&](std::size_t i, const std::string& why) {
      return mismatch{"cpu reference: " + why, w.name, static_cast<long long>(i), hex_element(w, i),
                      hex_element(g, i),       {}};
    };
    if (f.over) {
      const std::size_t i = f.first_over;
      return at(i, "|out - x| is " + format_double("%.3g", f.first_over_ratio) +
                       " times the bound ulp_bf16(x) + 2^-12 m, x = " +
                       format_double("%.9g", w.exact_value[i]) +
                       ", m = " + format_double("%.6g", w.term_magnitude[i]));
    }
    if (!f.passes()) {
      return at(f.first_inexact, "only " + format_double("%.3f", 100 * f.exact_share()) +
                                     "% of the elements equal bf16(x), below " +
                                     format_double("%.1f", 100 * k_min_exact_share) +
                                     "%; the first that does not");
    }
  }
  return std::nullopt;
}
bool is_input(const families::tensor& t) {
  return t.use == families::role::input;
}

/// A problem's tensors on the device, not launched with.
struct device_copy final : families::tensor_workspace {
  using tensor_workspace::tensor_workspace;
  void** args() override { return nullptr; }
};

/// The problem as the kernel first sees it: outputs poisoned (0xff in every byte: NaN in bf16,
/// e4m3 and fp32, which no random input produces), in-place tensors as given.
families::problem poisoned(families::problem p) {
  for (families::tensor& t : p.tensors) {
    if (t.use == families::role::output) std::fill(t.bytes.begin(), t.bytes.end(), 0xff);
  }
  return p;
}

/// Where --save-workspace keeps a record's tensors at shape `sname` ("-hazard" and the like after).
std::filesystem::path save_dir_of(const verify_options& o, const verify_record& r,
                                  const std::string& sname) {
  return o.save_dir / (r.family + "-" + r.mode + "-" + r.variant + "-" + sname);
}

void save(const std::filesystem::path& dir, const families::problem& start,
          const families::problem& expected, const families::problem& got) {
  std::filesystem::create_directories(dir);
  for (const families::tensor& t : start.tensors) {
    write_npy(dir / (t.name + ".npy"), t);
    if (is_written(t)) {
      write_npy(dir / ("expected_" + t.name + ".npy"), expected.at(t.name));
      write_npy(dir / ("got_" + t.name + ".npy"), got.at(t.name));
    }
  }
}

/// Records variant `v` as unlaunchable when the GPU cannot launch it at `shape`; true if so.
/// Throws error(verify) for the reference variant: nothing can be verified without it.
bool mark_unlaunchable(const families::family& f, const space::mode& m, const space::variant& v,
                       const families::shape& shape, CUfunction fn, const device::device_info& info,
                       verify_record& r) {
  std::string why = unlaunchable_unless_reference(f, v, m, shape, fn, info);
  if (why.empty()) return false;
  r.outcome = results::status::unlaunchable;
  r.reason = std::move(why);
  return true;
}

/// The variants of a mode compiled and loaded: a record per variant (compile_failed where NVRTC
/// refused it), the loaded kernels (the function null where it did not compile), and which one is
/// the reference.
struct loaded_mode {
  std::vector<verify_record> records;
  std::vector<jit::loaded_kernel> kernels;
  std::size_t reference = 0;
};

loaded_mode load_mode(const jit::jit_engine& engine, const families::family_space& space,
                      const space::mode& m, const std::vector<space::variant>& variants,
                      const std::string& arch, const std::filesystem::path& kernel_dir) {
  std::vector<const space::variant*> chosen;
  for (const auto& v : variants) chosen.push_back(&v);
  loaded_mode out{std::vector<verify_record>(variants.size()),
                  jit::compile_and_load(engine, space.config, m, chosen, arch, kernel_dir),
                  variants.size()};
  const std::vector<jit::loaded_kernel>& kernels = out.kernels;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    verify_record& r = out.records[i];
    r.family = space.config.family;
    r.mode = m.name;
    r.variant = variants[i].id;
    r.test_only = variants[i].test_only;
    if (variants[i].is_reference) out.reference = i;
    if (!kernels[i].ok()) {
      r.outcome = results::status::compile_failed;
      r.reason = kernels[i].compiled.log;
    }
  }
  if (out.reference == variants.size() || !kernels[out.reference].ok()) {
    throw error(error_kind::verify, space.config.family + "/" + m.name +
                                        ": the reference variant is missing or did not compile");
  }
  return out;
}

/// The shapes to verify at: the edge shapes, then every requested combination.
std::vector<families::shape> verify_shapes(const families::family& fam, const space::mode& m,
                                           const verify_options& o) {
  std::vector<families::shape> shapes;
  const std::vector<families::shape> models = fam.sweep_shapes(m, o.shapes);  // at T = 1
  if (o.edge_shapes) shapes = fam.edge_shapes(models.front(), m);
  for (long long t : o.tokens) {
    for (families::shape s : models) {
      s.tokens = t;
      shapes.push_back(s);
    }
  }
  return shapes;
}

/// One shape's problem on the device. The inputs go to the device once: `pristine` keeps them,
/// and every run starts from a device-side copy of it. Only the written tensors come back to the
/// host; the check that inputs are untouched runs on the device.
class shape_bench {
 public:
  shape_bench(const std::string& family, const families::family& fam, const space::mode& m,
              const families::shape& shape, unsigned long long seed, const device::stream& stream,
              const timing::helper_kernels& helpers, device::device_buffer& jobs)
      : m_fam(fam),
        m_mode(m),
        m_shape(shape),
        m_stream(stream),
        m_helpers(helpers),
        m_jobs(jobs),
        m_start(poisoned(fam.make_problem(shape, m, seed))),
        m_expected(m_start),
        m_pristine(m_start),
        m_ws(fam.make_workspace(shape, m, m_start)),
        m_tensors(dynamic_cast<const families::tensor_workspace*>(m_ws.get())),
        m_first_difference(m_start.tensors.size() * sizeof(unsigned long long)) {
    fam.reference(shape, m, m_expected);
    if (!m_tensors)
      throw error(error_kind::verify,
                  family + ": its workspace does not keep one buffer per tensor");
    for (const families::tensor& t : m_start.tensors) {
      if (is_written(t)) m_written.tensors.push_back(t);
    }
  }

  const families::problem& start() const { return m_start; }
  const families::problem& expected() const { return m_expected; }

  /// Runs variant `v` (function `fn`) once, with the hazard producer in front when
  /// `hazard_delay_us` is given; returns what the GPU left in the written tensors.
  families::problem run(const space::variant& v, CUfunction fn,
                        std::optional<double> hazard_delay_us) const {
    m_tensors->restore(m_pristine, m_stream.get());
    device::launch_config config = m_fam.geometry(v, m_mode, m_shape);
    if (hazard_delay_us) {
      launch_producer(*hazard_delay_us);
      config.pdl = true;
    }
    device::launch(fn, m_stream.get(), config, m_ws->args());
    m_stream.synchronize();
    families::problem got = m_written;
    m_tensors->download(got);
    return got;
  }

  /// The first input the last run changed, if any.
  std::optional<mismatch> input_changed() const {
    m_first_difference.fill(0xff, m_stream.get());
    for (std::size_t j = 0; j < m_start.tensors.size(); ++j) {
      const families::tensor& t = m_start.tensors[j];
      if (!is_input(t)) continue;
      CUdeviceptr a = m_tensors->ptr(t.name), b = m_pristine.ptr(t.name),
                  at = m_first_difference.ptr() + j * sizeof(unsigned long long);
      unsigned long long bytes = t.bytes.size();
      void* args[] = {&a, &b, &bytes, &at};
      device::launch_config c;
      c.grid.x = 264;
      c.block.x = 256;
      device::launch(m_helpers.first_difference(), m_stream.get(), c, args);
    }
    m_stream.synchronize();
    std::vector<unsigned long long> first(m_start.tensors.size());
    m_first_difference.download(first.data(), first.size() * sizeof(unsigned long long));
    for (std::size_t j = 0; j < first.size(); ++j) {
      const families::tensor& t = m_start.tensors[j];
      if (!is_input(t) || first[j] == ~0ull) continue;
      families::problem now;
      now.tensors.push_back(t);
      m_tensors->download(now);
      const std::size_t index = first[j] / families::dtype_bytes(t.type);
      return mismatch{"input changed",
                      t.name,
                      static_cast<long long>(index),
                      hex_element(t, index),
                      hex_element(now.tensors[0], index),
                      {}};
    }
    return std::nullopt;
  }

 private:
  /// Upstream-produced inputs: poisoned on the device, written late by the delayed producer.
  void launch_producer(double delay_us) const {
    std::vector<unsigned long long> jobs;
    for (const families::tensor& t : m_start.tensors) {
      if (!t.upstream) continue;
      m_tensors->fill(t.name, 0xff, m_stream.get());
      jobs.insert(jobs.end(), {m_tensors->ptr(t.name), m_pristine.ptr(t.name), t.bytes.size()});
    }
    m_jobs.upload(jobs.data(), jobs.size() * sizeof(unsigned long long));
    CUdeviceptr job_ptr = m_jobs.ptr();
    int count = static_cast<int>(jobs.size() / 3);
    unsigned long long delay_ns = static_cast<unsigned long long>(delay_us * 1e3);
    void* args[] = {&job_ptr, &count, &delay_ns};
    device::launch_config producer;
    producer.grid.x = 8;
    producer.block.x = 256;
    device::launch(m_helpers.delayed_producer(), m_stream.get(), producer, args);
  }

  const families::family& m_fam;
  const space::mode& m_mode;
  const families::shape& m_shape;
  const device::stream& m_stream;
  const timing::helper_kernels& m_helpers;
  device::device_buffer& m_jobs;
  families::problem m_start, m_expected, m_written;
  const device_copy m_pristine;
  std::unique_ptr<families::workspace> m_ws;
  const families::tensor_workspace* m_tensors;
  mutable device::device_buffer m_first_difference;
};

/// What the reference variant left at a shape, and how it fared against the CPU reference there.
struct reference_outcome {
  std::optional<families::problem> got;
  accuracy bound;
  bool passed = false;
};

/// The first check a variant's output `got` fails at a shape. Bit for bit equal to the reference
/// variant's output: the CPU checks the reference passed hold as they did for it, with its
/// figures (at T = 4097 the bound's check costs more than the run). Otherwise every check, the
/// CPU reference's first. The reference variant's own figures go to `ref`.
std::optional<mismatch> check_output(const families::problem& expected,
                                     const families::problem& got, bool is_reference,
                                     reference_outcome& ref, verify_record& r) {
  if (ref.passed && !compare(*ref.got, got, is_written, "reference variant")) {
    r.merge(ref.bound);
    return std::nullopt;
  }
  accuracy b;
  std::optional<mismatch> bad = compare(expected, got, is_written_exact, "cpu reference");
  if (!bad) bad = compare_within_bound(expected, got, b);
  r.merge(b);
  if (!bad && ref.got) bad = compare(*ref.got, got, is_written, "reference variant");
  if (is_reference) {
    ref.bound = b;
    ref.passed = !bad;
  }
  return bad;
}

/// The PDL hazard check: under each hazard run the result must be what the plain run `got` gave,
/// bit for bit. Marks `r` pdl_hazard at the first that differs (saving its tensors where asked).
void check_hazard(const shape_bench& bench, const space::variant& v, CUfunction fn,
                  const families::problem& got, const std::string& sname, const verify_options& o,
                  verify_record& r) {
  for (unsigned h = 0; h < o.hazard_runs; ++h) {
    const families::problem hazard_got = bench.run(v, fn, o.hazard_delay_us);
    ++r.checks;
    std::optional<mismatch> hz =
        compare(got, hazard_got, is_written, "the same variant without the producer");
    if (!hz) continue;
    hz->shape = sname;
    r.outcome = results::status::pdl_hazard;
    r.reason = "under PDL behind a delayed producer, " + hz->tensor + "[" +
               std::to_string(hz->index) + "]: expected " + hz->expected + ", got " + hz->got +
               " (" + sname + ", hazard run " + std::to_string(h + 1) + ")";
    r.first_mismatch = hz;
    if (!o.save_dir.empty())
      save(save_dir_of(o, r, sname + "-hazard"), bench.start(), bench.expected(), hazard_got);
    return;
  }
}

/// Variant `v` at one shape: run once and checked (check_output, then its inputs untouched),
/// then the hazard check. The reference variant's outcome goes to `ref`.
void check_variant(const shape_bench& bench, const space::variant& v, CUfunction fn,
                   const std::string& sname, const verify_options& o, reference_outcome& ref,
                   verify_record& r) {
  const families::problem got = bench.run(v, fn, std::nullopt);
  ++r.checks;
  std::optional<mismatch> bad = check_output(bench.expected(), got, v.is_reference, ref, r);
  if (!bad) bad = bench.input_changed();
  if (v.is_reference) ref.got = got;
  if (bad) {
    bad->shape = sname;
    r.outcome = results::status::mismatch;
    r.reason = bad->tensor + "[" + std::to_string(bad->index) + "]: expected " + bad->expected +
               ", got " + bad->got + " (" + bad->against + ", " + sname + ")";
    r.first_mismatch = bad;
  }
  if (!o.save_dir.empty() && (bad || o.save_all))
    save(save_dir_of(o, r, sname), bench.start(), bench.expected(), got);
  if (!bad) check_hazard(bench, v, fn, got, sname, o, r);
}

/// A sticky fault in variant `r` poisons the context: nothing more can run in this process, so
/// every variant still ok is left unsupported.
void fault_ends_context(const error& e, const std::string& sname, verify_record& r,
                        std::vector<verify_record>& records) {
  r.outcome = results::status::launch_failed;
  r.reason = std::string(e.what()) + " (" + sname + ")";
  for (verify_record& other : records) {
    if (other.outcome == results::status::ok && &other != &r) {
      other.outcome = results::status::unsupported;
      other.reason = "not verified: an earlier variant's fault ended the process's GPU context";
    }
  }
}

}  // namespace

verifier::verifier(const device::device_info& info, const jit::jit_engine& engine,
                   std::filesystem::path kernel_dir, const timing::helper_kernels& helpers)
    : m_info(info), m_engine(engine), m_kernel_dir(std::move(kernel_dir)), m_helpers(helpers) {}

std::vector<verify_record> verifier::verify_mode(const families::family_space& space,
                                                 const space::mode& m,
                                                 const std::vector<space::variant>& variants,
                                                 const verify_options& o) const {
  const families::family& fam = *space.impl;
  nvtx::scoped_range family_range(space.config.family);
  // Compile everything first, in parallel, and load what compiled.
  loaded_mode loaded = load_mode(m_engine, space, m, variants, m_info.arch, m_kernel_dir);
  std::vector<verify_record>& records = loaded.records;
  // The reference variant first at each shape: the others are compared with it.
  std::vector<std::size_t> order = {loaded.reference};
  for (std::size_t i = 0; i < variants.size(); ++i) {
    if (i != loaded.reference) order.push_back(i);
  }
  const device::stream stream;
  device::device_buffer jobs_buffer(16 * 3 * sizeof(unsigned long long));
  const std::vector<families::shape> shapes = verify_shapes(fam, m, o);
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    const families::shape& shape = shapes[k];
    const std::string sname = shape_name(shape);
    nvtx::scoped_range shape_range(m.name + "-" + sname, shape.tokens);
    const shape_bench bench(space.config.family, fam, m, shape, o.seed + k, stream, m_helpers,
                            jobs_buffer);
    reference_outcome ref;
    for (std::size_t i : order) {
      verify_record& r = records[i];
      const CUfunction fn = loaded.kernels[i].function;  // null: it did not compile
      if (!fn || r.outcome != results::status::ok) continue;
      if (mark_unlaunchable(fam, m, variants[i], shape, fn, m_info, r)) continue;
      nvtx::scoped_range variant_range(variants[i].id, shape.tokens);
      nvtx::scoped_range verify_range("verify", shape.tokens);
      r.shapes.push_back(sname);
      try {
        watch::scope gpu_work(variants[i].id);  // a supervisor names it if it hangs or faults
        check_variant(bench, variants[i], fn, sname, o, ref, r);
      } catch (const error& e) {
        if (e.kind() != error_kind::launch) throw;
        fault_ends_context(e, sname, r, records);
        return records;
      }
    }
  }
  return records;
}

}  // namespace kk3::verify
