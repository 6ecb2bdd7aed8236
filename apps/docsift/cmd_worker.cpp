// `docsift worker`: the process `docsift run --isolate worker` starts to hold the model (see
// lib/docsift/batch/worker_main.h). Not for users: it speaks the supervisor's protocol on fds 3 and
// 4, and is hidden from --help.
#include "commands.h"
#include "docsift/batch/model_support.h"
#include "docsift/batch/worker_main.h"

namespace docsift::cli {

batch::WorkerCommand worker_command() {
  // /proc/self/exe rather than argv[0]: the same binary even when it was started through a link,
  // from a relative path, or has been replaced on disk since.
  return {"/proc/self/exe", {"docsift", "worker", "--for"}};
}

Command add_worker_command(CLI::App& root) {
  auto tag = std::make_shared<std::string>();
  CLI::App* app = root.add_subcommand("worker", "Model worker for run --isolate worker (internal)");
  app->group("");  // hidden
  app->add_option("--for", *tag, "The supervisor's output folder (shown by ps)");
  return {app, [tag] {  // `tag` must outlive parsing: CLI11 writes into it
            return batch::run_worker(
                [](const config::Config& cfg) { batch::prepare_model_device(cfg, nullptr); });
          }};
}

}  // namespace docsift::cli
