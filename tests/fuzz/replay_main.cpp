// Replays a fuzz target's corpus without libFuzzer: built with the normal compiler by
// tests/CMakeLists.txt, run by CTest over tests/fuzz/corpus/<target>/, so every input a fuzzer
// once found interesting (and every crash it found, once fixed) stays a regression test.
//   fuzz_replay_<target> DIR [DIR...]
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  std::size_t inputs = 0;
  for (int i = 1; i < argc; ++i) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(argv[i])) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      const std::vector<char> bytes{std::istreambuf_iterator<char>(in), {}};
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++inputs;
    }
  }
  std::printf("%zu inputs replayed\n", inputs);
  if (inputs == 0) {
    std::fprintf(stderr, "no inputs: the corpus is missing or empty\n");
    return 1;
  }
  return 0;
}
