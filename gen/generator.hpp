// Writes everything oasis-gen produces for one config, atomically.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/config.hpp"

namespace oasis::gen {

struct GenerateRequest {
  std::string config_path;             ///< as given on the command line (for banners)
  std::vector<std::string> overrides;  ///< --set key=value, in order
  std::string out_dir;
};

/// File name -> contents, everything the generator writes for `config`, in a
/// deterministic order. Exposed for the tests.
std::map<std::string, std::string> render(const Config& config, const GenerateRequest& request);

/// Renders into a temporary folder beside out_dir and renames it into place
/// only when every file was written; a failure leaves out_dir as it was.
/// Throws std::runtime_error with a message on any I/O failure.
void generate(const Config& config, const GenerateRequest& request);

}  // namespace oasis::gen
