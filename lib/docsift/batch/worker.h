// Worker isolation (memory.isolate: worker, `docsift run --isolate worker`). The run's own process
// becomes a supervisor that never touches the device: it scans, journals and writes the outputs,
// and hands images one at a time to a long-lived worker process (the same binary, `docsift worker`)
// that holds the model. The supervisor recycles the worker before memory creeps, kills it when an
// image outlasts memory.worker.timeout_s, and replaces it when it crashes (the image is retried
// once in a fresh worker). What a process gives back only by exiting (the CUDA context, memory a
// library keeps, a wedged driver call) is given back that way.
//
// Protocol (version 1): one JSON object per line, over a pipe each way (the worker's fds 3 and 4,
// so nothing a library prints on stdout can corrupt it).
//   supervisor → worker  {"type":"hello","protocol":1,"config":"<effective config as YAML>"}
//   worker → supervisor  {"type":"ready","protocol":1,"pid":N,"device":"cuda:0"}
//                        or {"type":"error","kind":"config"|"file","message":"..."} and exit 3
//   supervisor → worker  {"type":"image","path_hex":"<path bytes as hex>","page":P,"index":N,"attempt":A}
//   worker → supervisor  {"type":"record","record":{...},"fatal":false,"fatal_error":"","memory_in_use":B}
//   supervisor → worker  {"type":"exit"}   (or EOF): the worker exits 0
// The worker dies with its supervisor (PR_SET_PDEATHSIG), so a supervisor killed with -9 leaves
// nothing behind; it ignores SIGINT, so Ctrl-C reaches only the supervisor, which decides.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "docsift/batch/image_job.h"
#include "docsift/config/config.h"

namespace docsift::batch {

constexpr int kWorkerProtocol = 1;
constexpr int kWorkerRequestFd = 3, kWorkerReplyFd = 4;

// The `docsift worker` loop on fds 3 and 4. `prepare_device` runs once the config has arrived,
// before the model loads (allocator settings, memory budget). Returns the exit code.
int run_worker(const std::function<void(const config::Config&)>& prepare_device);

struct WorkerStats {
  int started = 0, recycles = 0, crashes = 0, timeouts = 0;
};

class WorkerSupervisor {
 public:
  // No worker starts until the first image. `tag` goes on the worker's command line (`docsift worker --for TAG`) so `ps` shows whose it
  // is; `note` receives one line per worker event (start, recycle, crash, timeout) for the log.
  WorkerSupervisor(const config::Config& config, std::string tag, std::function<void(const std::string&)> note);
  ~WorkerSupervisor();  // stops and reaps the worker, whatever state it is in
  WorkerSupervisor(const WorkerSupervisor&) = delete;
  WorkerSupervisor& operator=(const WorkerSupervisor&) = delete;

  // The image's record from a worker (starting one when none runs). A crash is retried once in a
  // fresh worker, then recorded as failed with the signal or exit status; a timeout is recorded as
  // failed and the worker killed. Throws generate::Interrupted once `abandon` turns true (the
  // worker is killed and reaped first); docsift::FileError / ConfigError when a worker cannot start.
  // `more` says whether images follow: a replacement worker starts (and loads the model) at once
  // only then.
  ImageJob::Outcome process(const std::filesystem::path& path, int page, int index,
                            const std::function<bool()>& abandon, bool more = true);

  const WorkerStats& stats() const { return stats_; }
  const std::string& device() const { return device_; }  // as the worker reported it

 private:
  struct Worker;
  void start();
  // Waits for the worker's "ready"; throws when it fails to start.
  void await_ready(const std::function<bool()>& abandon);
  // Asks the worker to exit, then SIGTERM, then SIGKILL; always reaps.
  void stop(bool gently);

  config::Config config_;
  std::string config_yaml_, tag_;
  std::function<void(const std::string&)> note_;
  std::unique_ptr<Worker> worker_;
  WorkerStats stats_;
  std::string device_;
};

// What of CUDA this process has mapped (/proc/self/maps), for the supervisor's record.
//  - driver_library: libcuda.so, which LibTorch's CUDA libraries map as they load (cuBLASLt's
//    static initializer dlopens it). The supervisor never loads them (device/cuda_backend.h).
//  - gpu_devices: /dev/nvidia* device files, mapped once the driver is initialised and a context
//    exists, which is what costs GPU memory.
struct CudaFootprint {
  bool driver_library = false;
  bool gpu_devices = false;
};
CudaFootprint cuda_footprint();

}  // namespace docsift::batch
