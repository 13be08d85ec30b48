#include "device/driver_api.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "core/error.hpp"

namespace kk3::device {
namespace {

using get_proc_address_t = CUresult (*)(const char*, void**, int, cuuint64_t,
                                        CUdriverProcAddressQueryResult*);

struct loaded_driver {
  driver_api api;
  std::string failure;  // empty when the driver is usable
};

loaded_driver load() {
  loaded_driver out;
  const char* override_path = std::getenv("KK3TUNE_LIBCUDA");
  const char* path = override_path && *override_path ? override_path : "libcuda.so.1";
  void* lib = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = ::dlerror();
    out.failure = std::string("no NVIDIA driver: ") + path + " could not be loaded (" +
                  (why ? why : "unknown reason") + ")";
    return out;
  }
  auto get_proc = reinterpret_cast<get_proc_address_t>(::dlsym(lib, "cuGetProcAddress_v2"));
  if (!get_proc) {
    out.failure =
        std::string(path) + " has no cuGetProcAddress_v2: the driver is older than CUDA 12";
    return out;
  }
  std::string missing;
#define KK3_LOAD_DRIVER_FUNCTION(name)                                                             \
  {                                                                                                \
    void* fn = nullptr;                                                                            \
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;                   \
    if (get_proc(#name, &fn, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &found) == CUDA_SUCCESS && \
        found == CU_GET_PROC_ADDRESS_SUCCESS && fn) {                                              \
      out.api.name = reinterpret_cast<decltype(out.api.name)>(fn);                                 \
    } else {                                                                                       \
      missing += std::string(missing.empty() ? "" : ", ") + #name;                                 \
    }                                                                                              \
  }
  KK3_DRIVER_FUNCTIONS(KK3_LOAD_DRIVER_FUNCTION)
#undef KK3_LOAD_DRIVER_FUNCTION
  if (out.api.cuDriverGetVersion) out.api.cuDriverGetVersion(&out.api.driver_version);
  if (!missing.empty()) {
    out.failure = "the NVIDIA driver (CUDA " + std::to_string(out.api.driver_version / 1000) + "." +
                  std::to_string(out.api.driver_version % 1000 / 10) +
                  ") lacks entry points kk3tune needs for CUDA " +
                  std::to_string(CUDA_VERSION / 1000) + ": " + missing;
    return out;
  }
  const CUresult init = out.api.cuInit(0);
  if (init != CUDA_SUCCESS) {
    const char* name = nullptr;
    out.api.cuGetErrorName(init, &name);
    out.failure = std::string("cuInit failed: ") + (name ? name : "unknown error") +
                  (init == CUDA_ERROR_NO_DEVICE ? " (no CUDA-capable GPU is present)" : "");
  }
  return out;
}

const loaded_driver& instance() {
  static const loaded_driver d = load();
  return d;
}

}  // namespace

const driver_api& driver() {
  const loaded_driver& d = instance();
  if (!d.failure.empty()) throw error(error_kind::device, d.failure);
  return d.api;
}

bool driver_available(std::string* why) {
  const loaded_driver& d = instance();
  if (why) *why = d.failure;
  return d.failure.empty();
}

}  // namespace kk3::device
