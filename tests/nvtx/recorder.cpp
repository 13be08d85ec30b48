// An NVTX injection library for the tests: NVTX loads it when NVTX_INJECTION64_PATH names it,
// and it writes one line per event to the file named by KK3_NVTX_LOG:
//
//   domain <tid> <name>                             nvtxDomainCreateA
//   string <tid> <domain> <text>                    nvtxDomainRegisterStringA
//   push <tid> <domain> <type> <message> <payload>  nvtxDomainRangePushEx, nvtxRangePush{A,Ex}
//   pop <tid> <domain>                              nvtxDomainRangePop, nvtxRangePop
//
// <domain> is "(default)" for the non-domain calls; <type> how the message came (registered,
// ascii, unicode, none); <message> its text, a registered string resolved to the text it was
// registered with; <payload> an integer, a float or "none". Only <message> may hold spaces: it
// sits between fields that never do.
#define NVTX_NO_IMPL  // a tool: the types and declarations, not the application side
#include <nvtx3/nvToolsExt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace {

const char* const k_default_domain = "(default)";

/// The handles given back to NVTX are pointers to these; NVTX passes them back to us untouched,
/// so resolving a handle is a cast. They are never freed: handles stay valid for the process.
struct domain_record {
  std::string name;
};
struct string_record {
  const domain_record* domain;
  std::string text;
};

std::mutex g_mutex;
std::FILE* g_log = nullptr;

long os_thread_id() {
  return static_cast<long>(::syscall(SYS_gettid));
}

const char* domain_name(nvtxDomainHandle_t domain) {
  return domain ? reinterpret_cast<const domain_record*>(domain)->name.c_str() : k_default_domain;
}

/// One whole line, flushed, so a crash leaves every event before it in the file.
void write_line(const std::string& line) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_log) return;
  std::fputs(line.c_str(), g_log);
  std::fputc('\n', g_log);
  std::fflush(g_log);
}

/// "<type> <text>" of an event's message.
std::string message_text(const nvtxEventAttributes_t* attributes) {
  if (!attributes) return "none (null)";
  switch (attributes->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      return std::string("ascii ") +
             (attributes->message.ascii ? attributes->message.ascii : "(null)");
    case NVTX_MESSAGE_TYPE_REGISTERED: {
      // The handle is one this library made in on_register_string.
      const auto* record = reinterpret_cast<const string_record*>(attributes->message.registered);
      return "registered " + (record ? record->text : std::string("(null)"));
    }
    case NVTX_MESSAGE_TYPE_UNICODE:
      return "unicode (wide text)";
    default:
      return "none (none)";
  }
}

std::string payload_text(const nvtxEventAttributes_t* attributes) {
  if (!attributes) return "none";
  auto real = [](double v) {  // like printf's %g
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return std::string(buf);
  };
  const auto& p = attributes->payload;
  switch (attributes->payloadType) {
    case NVTX_PAYLOAD_TYPE_INT64:
      return std::to_string(p.llValue);
    case NVTX_PAYLOAD_TYPE_UNSIGNED_INT64:
      return std::to_string(p.ullValue);
    case NVTX_PAYLOAD_TYPE_INT32:
      return std::to_string(p.iValue);
    case NVTX_PAYLOAD_TYPE_UNSIGNED_INT32:
      return std::to_string(p.uiValue);
    case NVTX_PAYLOAD_TYPE_DOUBLE:
      return real(p.dValue);
    case NVTX_PAYLOAD_TYPE_FLOAT:
      return real(p.fValue);
    default:
      return "none";
  }
}

void log_push(const char* domain, const std::string& message, const std::string& payload) {
  write_line("push " + std::to_string(os_thread_id()) + " " + domain + " " + message + " " +
             payload);
}

void log_pop(const char* domain) {
  write_line("pop " + std::to_string(os_thread_id()) + " " + domain);
}

// ---- the handlers NVTX calls in place of its no-ops ----

nvtxDomainHandle_t NVTX_API on_domain_create(const char* name) {
  auto* record = new domain_record{name ? name : ""};
  write_line("domain " + std::to_string(os_thread_id()) + " " + record->name);
  return reinterpret_cast<nvtxDomainHandle_t>(record);
}

nvtxStringHandle_t NVTX_API on_register_string(nvtxDomainHandle_t domain, const char* text) {
  auto* record =
      new string_record{reinterpret_cast<const domain_record*>(domain), text ? text : ""};
  write_line("string " + std::to_string(os_thread_id()) + " " + domain_name(domain) + " " +
             record->text);
  return reinterpret_cast<nvtxStringHandle_t>(record);
}

int NVTX_API on_domain_push(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) {
  log_push(domain_name(domain), message_text(attributes), payload_text(attributes));
  return 0;
}

int NVTX_API on_domain_pop(nvtxDomainHandle_t domain) {
  log_pop(domain_name(domain));
  return 0;
}

int NVTX_API on_push_ascii(const char* message) {
  log_push(k_default_domain, std::string("ascii ") + (message ? message : "(null)"), "none");
  return 0;
}

int NVTX_API on_push_ex(const nvtxEventAttributes_t* attributes) {
  log_push(k_default_domain, message_text(attributes), payload_text(attributes));
  return 0;
}

int NVTX_API on_pop() {
  log_pop(k_default_domain);
  return 0;
}

/// Writes `handler` into slot `id` of a module's table; false when the table is too short.
template <typename function>
bool install(NvtxFunctionTable table, unsigned int size, unsigned int id, function handler) {
  if (!table || id == 0 || id >= size || !table[id]) return false;
  *table[id] = reinterpret_cast<NvtxFunctionPointer>(handler);
  return true;
}

}  // namespace

/// NVTX's entry point into the tool, called once on the first NVTX call of the process.
/// Returning 0 makes NVTX unload the library and turn every call into a no-op.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table) {
  if (!get_export_table) return 0;
  const auto* callbacks =
      static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (!callbacks || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
      !callbacks->GetModuleFunctionTable)
    return 0;

  const char* const path = std::getenv("KK3_NVTX_LOG");
  if (!path || !*path) return 0;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_log = std::fopen(path, "a");
    if (!g_log) return 0;
  }

  NvtxFunctionTable core2 = nullptr;
  unsigned int core2_size = 0;
  if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &core2_size)) return 0;
  const bool domains_ok =
      install(core2, core2_size, NVTX_CBID_CORE2_DomainCreateA, &on_domain_create) &&
      install(core2, core2_size, NVTX_CBID_CORE2_DomainRegisterStringA, &on_register_string) &&
      install(core2, core2_size, NVTX_CBID_CORE2_DomainRangePushEx, &on_domain_push) &&
      install(core2, core2_size, NVTX_CBID_CORE2_DomainRangePop, &on_domain_pop);
  if (!domains_ok) {
    std::lock_guard<std::mutex> lock(g_mutex);
    std::fclose(g_log);
    g_log = nullptr;
    return 0;
  }

  NvtxFunctionTable core = nullptr;
  unsigned int core_size = 0;
  if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &core_size)) {
    install(core, core_size, NVTX_CBID_CORE_RangePushA, &on_push_ascii);
    install(core, core_size, NVTX_CBID_CORE_RangePushEx, &on_push_ex);
    install(core, core_size, NVTX_CBID_CORE_RangePop, &on_pop);
  }

  // Tools are asked to say which NVTX version they were written against.
  const auto* version =
      static_cast<const NvtxExportTableVersionInfo*>(get_export_table(NVTX_ETID_VERSIONINFO));
  if (version && version->struct_size >= sizeof(NvtxExportTableVersionInfo) &&
      version->SetInjectionNvtxVersion)
    version->SetInjectionNvtxVersion(NVTX_VERSION);
  return 1;
}
