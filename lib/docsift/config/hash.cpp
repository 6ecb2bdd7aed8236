#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "docsift/config/config.h"

namespace docsift::config {
namespace {

// FNV-1a, 64 bits, over `bytes`, continuing from `h`.
std::uint64_t mix(std::uint64_t h, const std::string& bytes) {
  for (const unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

// The content of a file a setting names, read for the hash: a rules, calibration, schema or
// sellers file changes what a run reads as much as a key does. "builtin:..." and "" are the
// binary's own; a file that cannot be read adds a mark only (its reader refuses it at start).
std::uint64_t mix_file(std::uint64_t h, const std::string& key, const std::string& path) {
  if (path.empty() || path.rfind("builtin:", 0) == 0) return h;
  h = mix(h, std::string(1, '\0') + key + '\0');
  std::ifstream in(path, std::ios::binary);
  if (!in) return mix(h, "unreadable");
  std::string chunk(1 << 16, '\0');
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
    h = mix(h, chunk.substr(0, static_cast<std::size_t>(in.gcount())));
  }
  return h;
}

}  // namespace

std::string hash(Config config) {
  config.output.dir.clear();
  config.input.follow_links = false;  // which files are read, not what a page's record says
  config.eval = {};                   // scoring settings change no result of a run (config.h)
  config.gate = {};
  // Pages read at once: each reads the same. Written as the 2 it was when it was a reading setting,
  // so that the hashes of earlier runs still match.
  config.ocr.threads = 2;
  std::uint64_t h = mix(1469598103934665603ull, to_yaml(config));
  // The files' contents too, so that editing one between runs is a changed config to --resume.
  h = mix_file(h, "extraction.fields", config.extraction.fields);
  h = mix_file(h, "ocr.rules", config.ocr.rules);
  h = mix_file(h, "ocr.calibration", config.ocr.calibration);
  h = mix_file(h, "ocr.finder", config.ocr.finder);
  h = mix_file(h, "ocr.known_sellers", config.ocr.known_sellers);
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

}  // namespace docsift::config
