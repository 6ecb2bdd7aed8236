// docsift half of the tokenizer benchmark (bench/tokenizer/run.sh runs it next to the
// `tokenizers` reference on the same corpus). Encodes every document of a JSON Lines corpus
// (one JSON string per line) in order, single thread, best of --repeat, and prints one JSON
// line: bytes, docs, tokens, seconds, MB/s and a checksum of all ids, so the two
// implementations are compared on identical output, not just speed.
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "docsift/text/tokenizer.h"

int main(int argc, char** argv) {
  std::string tokenizer_path, corpus_path;
  int repeat = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--tokenizer")
      tokenizer_path = argv[i + 1];
    else if (flag == "--corpus")
      corpus_path = argv[i + 1];
    else if (flag == "--repeat")
      repeat = std::max(1, std::stoi(argv[i + 1]));
    else {
      std::cerr << "unknown flag " << flag << '\n';
      return 2;
    }
  }
  if (tokenizer_path.empty() || corpus_path.empty()) {
    std::cerr
        << "usage: docsift_bench_tokenizer --tokenizer PATH --corpus FILE.jsonl [--repeat N]\n";
    return 2;
  }
  try {
    const auto load_start = std::chrono::steady_clock::now();
    const auto tokenizer = docsift::text::Tokenizer::load(tokenizer_path);
    const double load_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();

    std::vector<std::string> docs;
    std::size_t bytes = 0;
    {
      std::ifstream in(corpus_path);
      if (!in) throw std::runtime_error(corpus_path + ": cannot open");
      std::string line;
      while (std::getline(in, line)) {
        if (line.empty()) continue;
        docs.push_back(nlohmann::json::parse(line).get<std::string>());
        bytes += docs.back().size();
      }
    }
    if (docs.empty()) throw std::runtime_error(corpus_path + ": no documents");
    (void)tokenizer.encode(docs.front());  // warm-up, as the reference run does

    double best = 1e300;
    std::uint64_t tokens = 0, checksum = 0;
    for (int r = 0; r < repeat; ++r) {
      std::vector<std::vector<int32_t>> all;
      all.reserve(docs.size());
      const auto start = std::chrono::steady_clock::now();
      for (const auto& doc : docs) all.push_back(tokenizer.encode(doc));
      best = std::min(
          best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      tokens = 0;
      checksum = 0;
      for (const auto& ids : all) {
        for (const int32_t id : ids) {
          ++tokens;
          checksum += tokens * static_cast<std::uint64_t>(id);  // wraps mod 2^64 by definition
        }
      }
    }
    nlohmann::json out = {{"impl", "docsift"},    {"bytes", bytes},
                          {"docs", docs.size()},  {"tokens", tokens},
                          {"seconds", best},      {"mb_per_s", bytes / 1e6 / best},
                          {"checksum", checksum}, {"load_seconds", load_seconds}};
    std::cout << out.dump() << '\n';
  } catch (const std::exception& e) {
    std::cerr << "docsift_bench_tokenizer: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
