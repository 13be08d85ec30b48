// Registers every family in tests/families/list.def with the families registry before main()
// runs. Linked only into test executables, so the installed kk3tune never lists them.
#include "families/registry.hpp"

namespace kk3::families {

#define KK3_FAMILY(name) const family& register_##name();
#include "list.def"
#undef KK3_FAMILY

namespace {

#define KK3_FAMILY(name) const bool k_registered_##name = add_family(&register_##name);
#include "list.def"
#undef KK3_FAMILY

}  // namespace

}  // namespace kk3::families
