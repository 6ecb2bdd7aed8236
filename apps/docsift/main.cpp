// docsift command line: parse, dispatch, and map exceptions to exit codes. Results go to stdout
// or files; errors go to stderr as one line.
#include <c10/util/Exception.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <vector>

#include "commands.h"
#include "docsift/error.h"
#include "exit_codes.h"

namespace {

int fail(int code, const std::string& message) {
  std::cerr << "docsift: error: " << message << '\n';
  return code;
}

// c10::Error::what() appends a C++ backtrace; the first line is the message.
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

namespace docsift::cli {
char** g_argv = nullptr;
}

int main(int argc, char** argv) {
  using namespace docsift::cli;
  g_argv = argv;
  CLI::App app{"docsift: batch field extraction from document images with vision-language models"};
  app.set_help_all_flag("--help-all", "Print help for every subcommand");
  app.footer(
      "Exit codes: 0 success; 1 some images failed; 2 usage or config error; 3 could not start "
      "(model, device, lock); 4 eval below the gate; 5 run stopped early (continue with --resume).\n"
      "Environment: CUDA_VISIBLE_DEVICES selects the GPUs docsift can see.");
  bool show_version = false;
  app.add_flag("--version", show_version, "Print docsift, LibTorch and CUDA versions and the visible devices");

  std::vector<Command> commands{add_run_command(app), add_merge_command(app), add_inspect_command(app), add_config_command(app),
                                   add_tokenize_command(app), add_generate_command(app),
                                   add_eval_command(app), add_worker_command(app)};

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);  // prints help, or the parse error with a usage hint
    return code == 0 ? kExitOk : kExitUsage;
  }

  try {
    if (show_version) return print_version();
    for (const auto& command : commands) {
      if (command.app->parsed()) return command.run();
    }
    std::cerr << app.help();
    return kExitUsage;
  } catch (const docsift::ConfigError& e) {
    return fail(kExitUsage, e.what());
  } catch (const docsift::FileError& e) {
    return fail(kExitCannotStart, e.what());
  } catch (const c10::Error& e) {
    return fail(kExitCannotStart, "LibTorch: " + first_line(e.what()));
  } catch (const std::exception& e) {
    return fail(kExitCannotStart, std::string("unexpected: ") + e.what());
  }
}
