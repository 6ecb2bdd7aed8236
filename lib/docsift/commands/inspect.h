// `docsift inspect` behind the command line (docs/cli.md): a model folder described from its
// config.json and safetensors headers (no weights are read), and with any planning option its
// memory plan per tier.
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

#include "docsift/config/config.h"

namespace docsift::commands {

// What inspect was asked, as the command line gives it (docs/cli.md lists the options).
struct InspectRequest {
  std::string model_dir;
  bool json = false;
  std::optional<double> budget_gb;  // --budget-gb: a card of this many GiB
  std::optional<int> tiles, max_new_tokens;
  bool config_given = false;  // --config or --set: they imply the plan as the options above do
};

// Prints the folder's description to `out` (a table, or JSON with request.json) and, when the
// request asks for a plan, the memory plan for the largest image the config allows and the
// config's field prompt. `load` loads the config; it is called only for a plan. Throws
// (docsift/error.h) for a folder that is not a model or a header that cannot be read.
void inspect(const InspectRequest& request, const std::function<config::Config()>& load,
             std::ostream& out);

}  // namespace docsift::commands
