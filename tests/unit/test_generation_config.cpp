// generation_config.json: its eos ids parsed and refused as docs/models.md, "Stop tokens", says,
// and added to the chat template's stop ids by both families.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "docsift/error.h"
#include "docsift/family/family.h"
#include "docsift/family/mllama/chat.h"
#include "docsift/model/checkpoint.h"
#include "docsift/model/generation_config.h"
#include "docsift/text/chat_template.h"
#include "support/temp_dir.h"

// After the LibTorch headers: c10's logging macros must not shadow doctest's CHECK.
#include <doctest/doctest.h>

namespace fs = std::filesystem;
using docsift::model::parse_generation_config;
using docsift::model::read_generation_config;
using docsift::testing::TempDir;
using docsift::testing::write_text;

namespace {

const fs::path kFixtures = fs::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures";
const std::string kSource = "ckpt/generation_config.json";

std::vector<int32_t> eos_of(const std::string& text) {
  return parse_generation_config(text, kSource).eos_token_ids;
}

// The message of the FileError `text` is refused with ("" when it is accepted).
std::string refusal(const std::string& text) {
  try {
    parse_generation_config(text, kSource);
  } catch (const docsift::FileError& e) {
    return e.what();
  }
  return "";
}

// doctest's matcher takes its own string type, made from a C string.
doctest::Contains has(const std::string& text) { return doctest::Contains(text.c_str()); }

bool contains(const std::vector<int32_t>& ids, int32_t id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// Every file of `from` copied into `to` (created), as a checkpoint folder to change.
void copy_folder(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  for (const auto& entry : fs::directory_iterator(from))
    fs::copy(entry.path(), to / entry.path().filename());
}

}  // namespace

TEST_CASE("generation_config.json eos_token_id: one id, a list, absent or null") {
  CHECK(eos_of(R"({"bos_token_id": 1112, "eos_token_id": 1114, "use_cache": true})") ==
        std::vector<int32_t>{1114});
  CHECK(eos_of(R"({"eos_token_id": [1203, 1206, 1207], "temperature": 0.6, "top_p": 0.9})") ==
        std::vector<int32_t>{1203, 1206, 1207});
  CHECK(eos_of(R"({"eos_token_id": []})").empty());
  CHECK(eos_of(R"({"transformers_version": "4.37.2"})").empty());
  CHECK(eos_of(R"({"eos_token_id": null})").empty());
  CHECK(eos_of("{}").empty());
  CHECK(eos_of(R"({"eos_token_id": 0})") == std::vector<int32_t>{0});
  CHECK(eos_of(R"({"eos_token_id": 2147483647})") == std::vector<int32_t>{2147483647});
  // Other keys are ignored, nested ones too (bad_words_ids is a list of lists).
  CHECK(eos_of(R"({"eos_token_id": 2, "bad_words_ids": [[1, 2], [3]], "do_sample": "yes"})") ==
        std::vector<int32_t>{2});
}

TEST_CASE("generation_config.json refusals name the file, the problem and what to do") {
  const auto refused = [](const std::string& text, const std::string& says) {
    CAPTURE(text);
    const std::string message = refusal(text);
    CAPTURE(message);
    CHECK(message.starts_with(kSource + ": "));
    CHECK(message.find(says) != std::string::npos);
  };
  refused(R"({"eos_token_id": "<|eot_id|>"})", "eos_token_id is a string (\"<|eot_id|>\")");
  refused(R"({"eos_token_id": 1114.0})", "eos_token_id is a float (1114.0)");
  refused(R"({"eos_token_id": 1e3})", "is a float");
  refused(R"({"eos_token_id": true})", "eos_token_id is a boolean (true)");
  refused(R"({"eos_token_id": {"id": 1}})", "eos_token_id is an object");
  refused(R"({"eos_token_id": -1})", "eos_token_id is negative (-1)");
  refused(R"({"eos_token_id": 2147483648})", "2147483648, over the largest token id 2147483647");
  refused(R"({"eos_token_id": 18446744073709551615})", "over the largest token id");
  refused(R"({"eos_token_id": 100000000000000000000})", "is a float");  // too large for 64 bits
  refused(R"({"eos_token_id": [1203, "x"]})", "eos_token_id[1] is a string");
  refused(R"({"eos_token_id": [1203, -5]})", "eos_token_id[1] is negative (-5)");
  refused(R"({"eos_token_id": [[1203]]})", "eos_token_id[0] is a list inside the list");
  refused(R"({"eos_token_id": [1203, null]})", "eos_token_id[1] is a null");
  for (const char* says :
       {"it must be a token id or a list of token ids", "fix or remove the key"}) {
    refused(R"({"eos_token_id": "x"})", says);
  }
  refused(R"([1203])", "the top level is an array, not an object");
  refused(R"(1203)", "the top level is a number, not an object");
  refused(R"("x")", "the top level is a string, not an object");
  refused(R"({"eos_token_id": 1)", "malformed JSON");
  refused("", "malformed JSON");
  refused(R"({"eos_token_id": 1, "eos_token_id": 2})", "key 'eos_token_id' appears more than once");

  // 10,000 ids are accepted, 10,001 are not.
  std::string list = "{\"eos_token_id\": [0";
  for (int i = 1; i < 10'000; ++i) list.append(",").append(std::to_string(i));
  CHECK(eos_of(list + "]}").size() == 10'000);
  refused(list + ",1]}", "eos_token_id lists 10001 ids, more than the 10000 docsift accepts");
}

TEST_CASE(
    "read_generation_config: absent is nullopt, the file is read, over 1 MiB is refused unread") {
  TempDir dir;
  CHECK_FALSE(read_generation_config(dir.path()).has_value());
  const fs::path file = dir / "generation_config.json";

  write_text(file, R"({"eos_token_id": [128001, 128008, 128009]})");
  const auto read = read_generation_config(dir.path());
  REQUIRE(read.has_value());
  CHECK(read->eos_token_ids == std::vector<int32_t>{128001, 128008, 128009});

  // Exactly the cap is read; one byte more is refused, the message naming the file and the limit.
  std::string text = R"({"eos_token_id": 7})";
  text.resize(docsift::model::kMaxGenerationConfigBytes, ' ');
  write_text(file, text);
  CHECK(read_generation_config(dir.path())->eos_token_ids == std::vector<int32_t>{7});
  write_text(file, text + " ");
  CHECK_THROWS_WITH_AS(read_generation_config(dir.path()),
                       has(file.string() + ": 1048577 bytes is larger than the 1048576-byte limit"),
                       docsift::FileError);

  // A parse error names the file by its path.
  write_text(file, R"({"eos_token_id": "2"})");
  CHECK_THROWS_WITH_AS(read_generation_config(dir.path()),
                       has(file.string() + ": eos_token_id is a string"), docsift::FileError);

  // Not a regular file: refused, not read.
  fs::remove(file);
  fs::create_directory(file);
  CHECK_THROWS_WITH_AS(read_generation_config(dir.path()),
                       has(file.string() + ": not a regular file"), docsift::FileError);
}

TEST_CASE("ChatTemplate add_stop_ids appends new ids once and refuses ids the tokenizer lacks") {
  const auto tokenizer =
      docsift::text::Tokenizer::load(kFixtures / "tokenizers/tiny-llama/tokenizer.json");
  docsift::text::ChatTemplate chat(docsift::family::mllama::chat_format(), tokenizer);
  const std::vector<int32_t> before = chat.stop_ids();
  const int32_t eot = *tokenizer.token_to_id("<|eot_id|>");
  const int32_t other = *tokenizer.token_to_id("<|start_header_id|>");
  REQUIRE_FALSE(contains(before, other));
  chat.add_stop_ids(std::vector<int32_t>{eot, other, other}, kSource);
  std::vector<int32_t> expected = before;
  expected.push_back(other);
  CHECK(chat.stop_ids() == expected);

  const auto vocab = static_cast<int32_t>(tokenizer.vocab_size());
  CHECK_THROWS_WITH_AS(
      chat.add_stop_ids(std::vector<int32_t>{vocab}, kSource),
      has(kSource + ": eos_token_id " + std::to_string(vocab) + " is not a token of"),
      docsift::FileError);
  CHECK(chat.stop_ids() == expected);
}

TEST_CASE("the fixture checkpoints stop at their generation_config.json eos ids") {
  for (const char* folder : {"internvl/hf", "internvl35/hf", "mllama/hub", "mllama/tree"}) {
    CAPTURE(folder);
    const auto generation = read_generation_config(kFixtures / folder);
    REQUIRE(generation.has_value());
    REQUIRE_FALSE(generation->eos_token_ids.empty());
    const auto family =
        docsift::family::open_family(docsift::model::Checkpoint(kFixtures / folder));
    for (const int32_t id : generation->eos_token_ids)
      CHECK(contains(family->chat().stop_ids(), id));
  }
}

TEST_CASE("a generation_config.json eos id the template lacks is added, both families") {
  // The fixtures' eos ids are already the templates' own, so a copy names one more: <tool_call>
  // (1118) in the original InternVL3 layout, which ships no generation_config.json, and
  // <|start_header_id|> (1204) in Llama 3.2 Vision's.
  struct Case {
    const char* folder;
    const char* eos;
    int32_t added;
  };
  for (const Case& c :
       {Case{"internvl/original", R"({"eos_token_id": [1114, 1118]})", 1118},
        Case{"mllama/hub", R"({"eos_token_id": [1203, 1204, 1206, 1207]})", 1204}}) {
    CAPTURE(c.folder);
    TempDir dir;
    const fs::path copy = dir / "m";
    copy_folder(kFixtures / c.folder, copy);
    fs::remove(copy / "generation_config.json");
    const auto plain = docsift::family::open_family(docsift::model::Checkpoint(copy));
    const std::vector<int32_t> own = plain->chat().stop_ids();
    REQUIRE_FALSE(contains(own, c.added));

    write_text(copy / "generation_config.json", c.eos);
    const auto family = docsift::family::open_family(docsift::model::Checkpoint(copy));
    std::vector<int32_t> expected = own;
    expected.push_back(c.added);
    CHECK(family->chat().stop_ids() == expected);

    // An id outside the tokenizer's vocabulary: refused, naming generation_config.json.
    write_text(copy / "generation_config.json", R"({"eos_token_id": [99999]})");
    CHECK_THROWS_WITH_AS(
        docsift::family::open_family(docsift::model::Checkpoint(copy)),
        has((copy / "generation_config.json").string() + ": eos_token_id 99999 is not a token of"),
        docsift::FileError);
    // A malformed one is refused too, by its path.
    write_text(copy / "generation_config.json", R"({"eos_token_id": "<|im_end|>"})");
    CHECK_THROWS_WITH_AS(
        docsift::family::open_family(docsift::model::Checkpoint(copy)),
        has((copy / "generation_config.json").string() + ": eos_token_id is a string"),
        docsift::FileError);
  }
}
