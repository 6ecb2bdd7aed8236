// `docsift generate` behind the command line (docs/cli.md): one image, one prompt, through the
// tier ladder as a run's pages go, for debugging and parity checks. apps/ parses the options into
// a GenerateRequest, loads the config with its shortcuts and calls `generate`.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "docsift/batch/log.h"
#include "docsift/config/config.h"

namespace docsift::commands {

// What generate was asked, as the command line gives it (docs/cli.md lists the options).
struct GenerateRequest {
  std::string model, device, dtype;  // config shortcuts (config_shortcuts)
  std::optional<int> max_tiles;      // a config shortcut too
  std::string image, prompt;
  std::optional<int> max_new_tokens;
  std::optional<std::uint64_t> seed;
  std::optional<double> temperature, top_p;
  bool greedy = false, json = false, no_stop = false, count_ops = false;
};

// The config keys generate's own options set, as --set's key=value (they win over --config and
// --set): model.path, model.device, model.dtype, model.max_tiles.
std::vector<std::string> config_shortcuts(const GenerateRequest& request);

// Loads the model, reads the image and prints the answer to `out` (with request.json, an object
// of the answer, what produced it and where the time went). Throws (docsift/error.h): no model
// folder in the config (ConfigError), an image that is not there or cannot be read before the
// model loads, and a page that failed on every tier (after --json printed its attempts).
void generate(const GenerateRequest& request, const config::Config& config, const batch::Log& log,
              std::ostream& out);

}  // namespace docsift::commands
