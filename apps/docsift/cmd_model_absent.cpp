// inspect and generate in a build without LibTorch (DOCSIFT_WITH_TORCH=OFF, docs/install.md,
// "Without LibTorch"): the commands stay listed, so that scripts and --help read the same, and say
// why they cannot run.
#include <memory>
#include <string>

#include "commands.h"
#include "docsift/batch/model_support.h"
#include "docsift/error.h"

namespace docsift::cli {
namespace {

Command absent(CLI::App& root, const std::string& name, const std::string& what) {
  CLI::App* app = root.add_subcommand(name, what + " (not in this build: no LibTorch)");
  app->allow_extras();
  return {app, [name]() -> int {
            throw ConfigError("docsift " + name + ": " + batch::without_model_stack() +
                              "; build with scripts/setup.sh for the models");
          }};
}

}  // namespace

Command add_inspect_command(CLI::App& root) {
  return absent(root, "inspect", "Inspect a model folder");
}
Command add_generate_command(CLI::App& root) {
  return absent(root, "generate", "Run the model on one image with one prompt");
}

}  // namespace docsift::cli
