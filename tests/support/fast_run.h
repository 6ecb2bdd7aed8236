// The options every test that runs `docsift run` on the fixture model starts from: the tiny
// InternVL3 of tests/fixtures/internvl/hf on the CPU in float32, two tiles at most (small and
// fast).
#pragma once

#include <filesystem>
#include <string>

#include "support/cli_runner.h"

namespace docsift::testing {

struct FastRun {
  // --set extraction.fields=configs/fields/business-documents.yaml (the built-in schema, as a
  // file).
  bool fields_file = false;
  // --set generation.max_new_tokens=N; 0 leaves the config's value.
  int max_new_tokens = 0;
  // --quiet
  bool quiet = false;
};

// " --model M --device cpu --set model.dtype=float32 --set model.max_tiles=2", then the options
// `o` asks for in the order of its fields; each starts with a space, paths are quoted.
inline std::string fast_run_options(const FastRun& o = {}) {
  const std::filesystem::path source = DOCSIFT_SOURCE_DIR;
  std::string s = " --model " + shell_quote((source / "tests/fixtures/internvl/hf").string()) +
                  " --device cpu --set model.dtype=float32 --set model.max_tiles=2";
  if (o.fields_file) {
    s += " --set extraction.fields=" +
         shell_quote((source / "configs/fields/business-documents.yaml").string());
  }
  if (o.max_new_tokens > 0)
    s += " --set generation.max_new_tokens=" + std::to_string(o.max_new_tokens);
  if (o.quiet) s += " --quiet";
  return s;
}

}  // namespace docsift::testing
