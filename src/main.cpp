// kk3tune: parse, dispatch, map exceptions to exit codes.
#include <exception>
#include <iostream>

#include "cli/app.hpp"
#include "core/error.hpp"

int main(int argc, char** argv) {
  try {
    return kk3::cli::run(argc, argv);
  } catch (const kk3::error& e) {
    std::cerr << "kk3tune: " << kk3::to_string(e.kind()) << " error: " << e.what() << "\n";
    return kk3::exit_code_for(e.kind());
  } catch (const std::exception& e) {
    std::cerr << "kk3tune: internal error: " << e.what() << "\n";
    return kk3::k_exit_environment;
  }
}
