// docsift command line: parse, dispatch, and map exceptions to exit codes. Results go to stdout
// or files; errors go to stderr as one line (a JSON object with --log-format json).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <cstring>
#include <iostream>
#include <sstream>
#include <vector>

#include "commands.h"
#include "docsift/edit_distance.h"
#include "exit_codes.h"

namespace docsift::cli {
char** g_argv = nullptr;
batch::LogFormat g_log_format = batch::LogFormat::kText;
}  // namespace docsift::cli

namespace {

using namespace docsift::cli;

// --log-format json anywhere on the command line: errors found while parsing it are JSON too.
docsift::batch::LogFormat log_format_of(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--log-format=json") == 0 ||
        (std::strcmp(argv[i], "--log-format") == 0 && i + 1 < argc &&
         std::strcmp(argv[i + 1], "json") == 0)) {
      return docsift::batch::LogFormat::kJson;
    }
  }
  return docsift::batch::LogFormat::kText;
}

// CLI11's parse error as one line, with the nearest command or option for a word it did not expect
// ("unknown command 'rnu' (did you mean run?)"). Given to CLI11 as its failure message, so CLI11
// still decides what an error is and prints it.
std::string parse_error_line(const CLI::App* root, const CLI::Error& error) {
  std::string message = error.what();
  const CLI::App* at = root;  // the deepest subcommand given, named with those above it
  std::string command = "docsift";
  while (!at->get_subcommands().empty()) {
    at = at->get_subcommands().front();
    command += " " + at->get_name();
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
    std::vector<std::string> extras = at->remaining();
    if (extras.empty()) extras = root->remaining(true);
    const std::string word = extras.empty() ? "" : extras.front();
    if (!word.empty() && word[0] == '-') {
      const std::string name = word.substr(0, word.find('='));
      std::vector<std::string> candidates;
      for (const CLI::App* app : {at, root}) {
        for (const CLI::Option* option : app->get_options()) {
          for (const std::string& l : option->get_lnames()) candidates.push_back("--" + l);
          for (const std::string& s : option->get_snames()) candidates.push_back("-" + s);
        }
      }
      const std::string best = docsift::closest_match(name, candidates);
      message = "unknown option " + name + (best.empty() ? "" : " (did you mean " + best + "?)") +
                "; `" + command + " --help` lists the options";
    } else if (!word.empty() && at == root) {
      std::vector<std::string> names;
      for (const CLI::App* sub : root->get_subcommands([](const CLI::App*) { return true; }))
        names.push_back(sub->get_name());
      const std::string best = docsift::closest_match(word, names);
      message = "unknown command '" + word + "'" +
                (best.empty() ? "" : " (did you mean " + best + "?)") +
                "; `docsift --help` lists the commands";
    } else if (!word.empty()) {
      message = "unexpected argument '" + word + "'; `" + command + " --help` shows what it takes";
    }
  } else {
    message += "; `" + command + " --help` for more";
  }
  std::ostringstream line;
  docsift::batch::Log(line, g_log_format, false)
      .error("error", message, {{"exit_code", kExitUsage}});
  return line.str();
}

int fail(const Failure& failure) {
  docsift::batch::Log(std::cerr, g_log_format, false)
      .error("error", failure.message, {{"exit_code", failure.code}});
  return failure.code;
}

// --log-format on every command and subcommand that has none of its own (run's feeds its log):
// main reads it off the command line before parsing (log_format_of), so that every command's
// errors and warnings are written as it says; this lets the parser take it.
void add_log_format(CLI::App* app, std::string& value) {
  if (app->get_option_no_throw("--log-format") == nullptr) {
    app->add_option("--log-format", value,
                    "text, or json: every stderr line a JSON object with time, level and event")
        ->check(CLI::IsMember({"text", "json"}));
  }
  for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; }))
    add_log_format(sub, value);
}

}  // namespace

int main(int argc, char** argv) {
  // A file-size limit (ulimit -f) is met as the write's own error (EFBIG), which every command
  // reports with the file's name and its exit code, never as SIGXFSZ killing the process mid-write.
  ::signal(SIGXFSZ, SIG_IGN);
  g_argv = argv;
  g_log_format = log_format_of(argc, argv);
  CLI::App app{
      "docsift: batch field extraction from business documents (images and PDFs), read by its own "
      "OCR engine or a vision-language model"};
  app.failure_message(parse_error_line);
  app.set_help_all_flag("--help-all", "Print help for every subcommand");
  app.footer(exit_code_footer() +
             "\nEnvironment: CUDA_VISIBLE_DEVICES selects the GPUs docsift can see.");
  bool show_version = false;
  app.add_flag("--version", show_version,
               "Print docsift, LibTorch and CUDA versions and the visible devices");
  bool show_exit_codes = false;
  app.add_flag("--exit-codes", show_exit_codes,
               "Print the exit codes of every command as a Markdown table");

  std::vector<Command> commands{add_run_command(app),      add_merge_command(app),
                                add_inspect_command(app),  add_config_command(app),
                                add_tokenize_command(app), add_generate_command(app),
                                add_eval_command(app),     add_report_command(app),
                                add_review_command(app),   add_worker_command(app)};
  // Each command's help ends with the codes it can return, from the one table.
  for (const Command& command : commands) {
    const std::string name = command.app->get_name();
    if (std::none_of(kExitCodes.begin(), kExitCodes.end(),
                     [&](const ExitCodeRow& row) { return returns(row, name); })) {
      continue;  // the internal worker command: the table does not name it
    }
    const std::string codes = exit_code_footer(name);
    const std::string own = command.app->get_footer();
    command.app->footer(own.empty() ? codes : own + "\n" + codes);
  }

  std::string log_format;  // what the parser took of --log-format: log_format_of read it already
  for (const Command& command : commands) add_log_format(command.app, log_format);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);  // prints help, or the parse error (parse_error_line)
    return code == 0 ? kExitOk : kExitUsage;
  }

  try {
    if (show_version) return print_version();
    if (show_exit_codes) {
      std::cout << exit_code_table_markdown();
      return kExitOk;
    }
    for (const auto& command : commands) {
      if (command.app->parsed()) return command.run();
    }
    std::cerr << app.help();
    return kExitUsage;
  } catch (...) {
    return fail(failure_of(std::current_exception()));
  }
}
