// The tokenizer against the reference `tokenizers` library: ids and decoded text recorded by
// scripts/make_tokenizer_vectors.py for the real Llama 3 and Qwen2 vocabularies (a case reported as
// skipped when ../shared is absent) and for tiny tokenizers committed under
// tests/fixtures/tokenizers/.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "docsift/error.h"
#include "docsift/text/byte_level.h"
#include "docsift/text/tokenizer.h"
#include "docsift/text/tokenizer_impl.h"
#include "docsift/text/utf8.h"
#include "support/skip.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using docsift::testing::TempDir;
using docsift::testing::write_text;
using docsift::text::StreamDecoder;
using docsift::text::Tokenizer;
using nlohmann::json;

namespace {

const fs::path kSourceDir = DOCSIFT_SOURCE_DIR;
const fs::path kFixtures = kSourceDir / "tests/fixtures/tokenizers";

json read_json(const fs::path& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  return json::parse(in);
}

// "where they first differ" is what a person debugging a mismatch needs.
std::string first_difference(const std::vector<int32_t>& got, const std::vector<int32_t>& want) {
  std::size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  std::ostringstream out;
  out << "first difference at index " << i << " of " << got.size() << " (got) / " << want.size()
      << " (want)";
  if (i < got.size()) out << ", got " << got[i];
  if (i < want.size()) out << ", want " << want[i];
  return out.str();
}

bool is_valid_utf8(const std::string& s) {
  return docsift::text::find_invalid_utf8(s) == docsift::text::kNoError;
}

struct VectorRun {
  std::size_t encode_cases = 0, decode_cases = 0, roundtrips = 0;
};

// The vectors files (sorted) whose tokenizer is committed (`shared` false) or one of the real
// vocabularies in ../shared (`shared` true).
std::vector<fs::path> vectors_files(bool shared) {
  const fs::path dir = kFixtures / "vectors";
  REQUIRE_MESSAGE(fs::is_directory(dir),
                  dir << " is missing; run scripts/make_tokenizer_vectors.py");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    if (read_json(entry.path())["tokenizer"].get<std::string>().starts_with("../shared") ==
        shared) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The tokenizer a vectors file was recorded with.
fs::path tokenizer_of(const fs::path& vectors_path) {
  return kSourceDir / read_json(vectors_path)["tokenizer"].get<std::string>();
}

// Checks one vectors file; returns its counts.
VectorRun check_vectors(const fs::path& vectors_path) {
  const json vectors = read_json(vectors_path);
  const fs::path tokenizer_path = kSourceDir / vectors["tokenizer"].get<std::string>();
  REQUIRE_MESSAGE(fs::exists(tokenizer_path), "tokenizer missing: " << tokenizer_path);
  const Tokenizer tokenizer = Tokenizer::load(tokenizer_path);
  const std::string name = vectors_path.stem().string();
  // Text survives a round trip unless the pipeline rewrites or drops it on purpose: NFC
  // (Qwen-style, compared against the NFC form), whitespace absorbed by lstrip/rstrip tokens
  // (the tiny-qwen "flag" cases), Split "Removed" and the prefix space (tiny-gpt2).
  const bool nfc = name == "qwen2" || name.starts_with("tiny-qwen");
  const bool lossless = name != "tiny-gpt2";
  VectorRun run;
  for (const json& c : vectors["encode"]) {
    const std::string text = c["text"].get<std::string>();
    const auto want = c["ids"].get<std::vector<int32_t>>();
    const auto got = tokenizer.encode(text, c.value("add_special_tokens", false));
    CHECK_MESSAGE(got == want, name << " encode \"" << c["name"].get<std::string>()
                                    << "\": " << first_difference(got, want));
    ++run.encode_cases;
    if (lossless && !c.value("add_special_tokens", false) &&
        !(nfc && c["name"].get<std::string>().starts_with("flag "))) {
      const std::string expected = nfc ? docsift::text::normalize_text({.nfc = true}, text) : text;
      CHECK_MESSAGE(tokenizer.decode(got) == expected,
                    name << " round trip \"" << c["name"].get<std::string>() << "\"");
      ++run.roundtrips;
    }
  }
  for (const json& c : vectors["decode"]) {
    const auto ids = c["ids"].get<std::vector<int32_t>>();
    const bool skip = c["skip_special_tokens"].get<bool>();
    const std::string want = c["text"].get<std::string>();
    const std::string got = tokenizer.decode(ids, skip);
    CHECK_MESSAGE(got == want,
                  name << " decode \"" << c["name"].get<std::string>() << "\" skip=" << skip);
    // Streaming: every piece is valid UTF-8 and the pieces add up to the whole decode.
    StreamDecoder stream(tokenizer, skip);
    std::string streamed;
    bool pieces_valid = true;
    for (const int32_t id : ids) {
      const std::string piece = stream.push(id);
      pieces_valid = pieces_valid && is_valid_utf8(piece);
      streamed += piece;
    }
    streamed += stream.finish();
    CHECK_MESSAGE(pieces_valid, name << " stream \"" << c["name"].get<std::string>()
                                     << "\" emitted broken UTF-8");
    CHECK_MESSAGE(streamed == want, name << " stream \"" << c["name"].get<std::string>() << "\"");
    ++run.decode_cases;
  }
  return run;
}

}  // namespace

// Checks each vectors file of `files`; every file holds over a hundred cases of each kind (the
// README's corpus is 163 strings), so an empty or cut file fails.
void check_all(const std::vector<fs::path>& files) {
  for (const auto& file : files) {
    CAPTURE(file);
    const VectorRun run = check_vectors(file);
    CHECK(run.encode_cases >= 100);
    CHECK(run.decode_cases >= 100);
    MESSAGE(file.stem().string() << ": " << run.encode_cases << " encode, " << run.decode_cases
                                 << " decode, " << run.roundtrips << " round-trip cases");
  }
}

TEST_CASE(
    "tokenizer vectors match the reference tokenizers library: the committed tiny tokenizers") {
  const auto files = vectors_files(false);
  // tiny-gpt2, tiny-llama, tiny-qwen, tiny-qwen-slow (tests/fixtures/tokenizers/vectors/README.md).
  REQUIRE(files.size() == 4);
  check_all(files);
}

TEST_CASE(
    "tokenizer vectors match the reference tokenizers library: the real Llama 3 and Qwen2 "
    "vocabularies") {
  const auto files = vectors_files(true);
  REQUIRE(files.size() == 2);  // llama3, qwen2
  for (const auto& file : files) {
    if (!fs::exists(tokenizer_of(file))) {
      DOCSIFT_SKIP(
          tokenizer_of(file).string()
          << " is absent (the real vocabularies live in ../shared, outside the repository)");
    }
  }
  check_all(files);
}

TEST_CASE("UTF-8: lossy decoding replaces maximal subparts, streaming holds incomplete tails") {
  using docsift::text::append_utf8_lossy;
  using docsift::text::incomplete_utf8_tail;
  const auto lossy = [](std::string_view bytes) {
    std::string out;
    append_utf8_lossy(out, bytes);
    return out;
  };
  const std::string fffd = "\xEF\xBF\xBD";
  CHECK(lossy("abc") == "abc");
  CHECK(lossy("\xF0\x9F\x98") == fffd);                // truncated 4-byte sequence: one
  CHECK(lossy("\xE0\x80") == fffd + fffd);             // E0 80 can never start a character
  CHECK(lossy("\xED\xA0\x80") == fffd + fffd + fffd);  // surrogates are ill-formed
  CHECK(lossy("\xC3\xA9\xFF\x41") == "\xC3\xA9" + fffd + "A");
  CHECK(incomplete_utf8_tail("ab\xE4\xB8") == 2);
  CHECK(incomplete_utf8_tail("ab\xF0\x9F\x98") == 3);
  CHECK(incomplete_utf8_tail("ab\xE4\xB8\xAD") == 0);
  CHECK(incomplete_utf8_tail("ab\xE0\x80") == 0);  // already invalid: nothing to wait for
  CHECK(incomplete_utf8_tail("\x80\x80\x80") == 0);
  CHECK(docsift::text::find_invalid_utf8("ok\xC0\xAF") == 2);  // overlong '/'
}

TEST_CASE("byte-level alphabet is a bijection over 256 bytes") {
  std::set<char32_t> seen;
  for (int b = 0; b < 256; ++b) {
    const char32_t c = docsift::text::byte_to_char(static_cast<unsigned char>(b));
    CHECK(seen.insert(c).second);
    CHECK(docsift::text::char_to_byte(c) == static_cast<unsigned char>(b));
  }
  CHECK(docsift::text::byte_to_char(' ') == U'Ġ');
  CHECK(docsift::text::byte_to_char('\n') == U'Ċ');
  CHECK(docsift::text::byte_to_char('A') == U'A');
}

TEST_CASE(
    "encode rejects invalid UTF-8 with the offset, decode skips unknown ids like the reference") {
  const Tokenizer tokenizer = Tokenizer::load(kFixtures / "tiny-qwen/tokenizer.json");
  try {
    (void)tokenizer.encode("total \xFF\xFE 12");
    FAIL("invalid UTF-8 accepted");
  } catch (const docsift::Error& e) {
    CHECK(std::string(e.what()).find("not valid UTF-8: byte 0xFF at offset 6") !=
          std::string::npos);
  }
  const auto ids = tokenizer.encode("Total");
  std::vector<int32_t> with_unknown = ids;
  with_unknown.push_back(9'999'999);
  CHECK(tokenizer.decode(with_unknown) == "Total");
  CHECK_THROWS_AS(tokenizer.id_to_token(9'999'999), docsift::Error);
  CHECK(tokenizer.encode("").empty());
}

TEST_CASE("the same tokenizer in both layouts gives the same ids") {
  const Tokenizer fast = Tokenizer::load(kFixtures / "tiny-qwen/tokenizer.json");
  const Tokenizer slow = Tokenizer::load(kFixtures / "tiny-qwen-slow");
  for (const std::string text :
       {"Tax Invoice\nABN 51 824 753 556\nTotal: $1,234.56 (incl. GST)",
        "<|im_start|>user\n<img><IMG_CONTEXT></img>\nWhat is the total?<|im_end|>",
        "café e\xCC\x81 東京 😀  \t\r\n"}) {
    CAPTURE(text);
    CHECK(fast.encode(text) == slow.encode(text));
  }
  CHECK(fast.vocab_size() == slow.vocab_size());
  CHECK(fast.added_tokens().size() == slow.added_tokens().size());
}

TEST_CASE("StreamDecoder never splits a character across pushes") {
  const Tokenizer tokenizer = Tokenizer::load(kFixtures / "tiny-qwen/tokenizer.json");
  const std::string text = "Price €12 – 東京 😀👍🏽 done<|im_end|>";
  const auto ids = tokenizer.encode(text);
  StreamDecoder stream(tokenizer, /*skip_special_tokens=*/true);
  std::string out;
  for (const int32_t id : ids) {
    const std::string piece = stream.push(id);
    CHECK(is_valid_utf8(piece));
    out += piece;
  }
  out += stream.finish();
  CHECK(out == "Price €12 – 東京 😀👍🏽 done");
  // A generation cut off mid-character ends with one replacement character, not garbage.
  StreamDecoder cut(tokenizer);
  const auto emoji = tokenizer.encode("🦘");  // not in the tiny training text
  REQUIRE(emoji.size() >= 2);  // the tiny vocabulary spells the emoji in byte tokens
  CHECK(cut.push(emoji[0]).empty());
  CHECK(cut.finish() == "\xEF\xBF\xBD");
}

TEST_CASE("malformed tokenizer files are rejected with the file and the problem named") {
  const fs::path good_path = kFixtures / "tiny-qwen/tokenizer.json";
  std::ifstream in(good_path);
  const json good = json::parse(in);
  TempDir dir;
  const auto expect_error = [&](const std::string& text, const std::string& needle) {
    CAPTURE(needle);
    const fs::path path = dir / "tokenizer.json";
    write_text(path, text);
    try {
      (void)Tokenizer::load(path);
      FAIL("accepted a malformed tokenizer");
    } catch (const docsift::FileError& e) {
      const std::string message = e.what();
      CAPTURE(message);
      CHECK(message.starts_with(path.string()));
      CHECK(message.find(needle) != std::string::npos);
    }
  };
  const auto with = [&](const std::function<void(json&)>& edit) {
    json copy = good;
    edit(copy);
    return copy.dump();
  };
  expect_error(good.dump().substr(0, 5000), "malformed JSON");
  expect_error(with([](json& j) { j.erase("model"); }), "missing \"model\"");
  expect_error(with([](json& j) { j["model"]["type"] = "WordPiece"; }),
               "model type \"WordPiece\" is not supported");
  expect_error(with([](json& j) {
                 j["model"]["merges"][3] = json::array({"Ġ", "no-such-token"});
               }),
               "'no-such-token', which is not in the vocabulary");
  expect_error(with([](json& j) { j["model"]["merges"][0] = "a b c"; }),
               "not two tokens separated by one space");
  expect_error(with([](json& j) { j["model"]["merges"][0] = 7; }),
               "must be \"a b\" or [\"a\", \"b\"]");
  expect_error(with([](json& j) { j["model"]["dropout"] = 0.1; }), "\"dropout\" is set");
  expect_error(with([](json& j) { j["model"]["byte_fallback"] = true; }), "byte_fallback");
  expect_error(with([](json& j) { j["model"]["vocab"]["Ġthe"] = -4; }), "must be an integer");
  expect_error(with([](json& j) { j["pre_tokenizer"]["pretokenizers"][0]["type"] = "Whitespace"; }),
               "pre-tokenizer type \"Whitespace\" is not supported");
  expect_error(
      with([](json& j) { j["pre_tokenizer"]["pretokenizers"][0]["behavior"] = "MergedWithNext"; }),
      "Split behavior \"MergedWithNext\" is not supported");
  expect_error(with([](json& j) {
                 j["pre_tokenizer"]["pretokenizers"][0]["pattern"] = {{"Regex", "(unclosed"}};
               }),
               "regex does not compile");
  expect_error(with([](json& j) { j["pre_tokenizer"] = nullptr; }), "ByteLevel");
  expect_error(with([](json& j) {
                 j["normalizer"] = {{"type", "Lowercase"}};
               }),
               "normalizer type \"Lowercase\" is not supported");
  expect_error(with([](json& j) {
                 j["decoder"] = {{"type", "WordPiece"}};
               }),
               "decoder type \"WordPiece\" is not supported");
  expect_error(with([](json& j) {
                 j["post_processor"] = {{"type", "BertProcessing"}};
               }),
               "BertProcessing");
  expect_error(with([](json& j) {
                 j["truncation"] = {{"max_length", 8}};
               }),
               "\"truncation\" is set");
  expect_error(with([](json& j) { j["added_tokens"][1]["id"] = j["added_tokens"][0]["id"]; }),
               "is given to both");
  expect_error(R"({"model": {"type": "BPE", "vocab": {}, "merges": []}, "model": {}})",
               "appears more than once");
  CHECK_THROWS_WITH_AS(Tokenizer::load(dir / "nope"), doctest::Contains("no such file or folder"),
                       docsift::InputMissingError);
  fs::create_directory(dir / "empty");
  CHECK_THROWS_WITH_AS(Tokenizer::load(dir / "empty"),
                       doctest::Contains("expected tokenizer.json, or vocab.json"),
                       docsift::FileError);
}

TEST_CASE("vocab.json + merges.txt layout: bad merges line and foreign tokenizer class") {
  TempDir dir;
  for (const char* name :
       {"vocab.json", "merges.txt", "tokenizer_config.json", "added_tokens.json"}) {
    fs::copy_file(kFixtures / "tiny-qwen-slow" / name, dir / name);
  }
  CHECK_NOTHROW((void)Tokenizer::load(dir.path()));
  std::ofstream(dir / "merges.txt", std::ios::app) << "one two three\n";
  CHECK_THROWS_WITH_AS(Tokenizer::load(dir.path()), doctest::Contains("merges.txt:"),
                       docsift::FileError);
  write_text(dir / "merges.txt", "#version: 0.2\n");
  write_text(dir / "tokenizer_config.json", R"({"tokenizer_class": "LlamaTokenizer"})");
  CHECK_THROWS_WITH_AS(Tokenizer::load(dir.path()),
                       doctest::Contains("\"LlamaTokenizer\" is not supported"),
                       docsift::FileError);
}
