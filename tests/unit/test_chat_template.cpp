// Chat templates: the exact prompt strings of docs/models.md, "Chat templates", and their ids.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "docsift/error.h"
#include "docsift/family/internvl/chat.h"
#include "docsift/family/mllama/chat.h"
#include "docsift/family/qwen25vl/chat.h"
#include "docsift/text/chat_template.h"

namespace fs = std::filesystem;
namespace internvl = docsift::family::internvl;
namespace mllama = docsift::family::mllama;
using docsift::text::ChatTemplate;
using docsift::text::Tokenizer;

namespace {

const fs::path kFixtures = fs::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures/tokenizers";

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

const std::string kSystem(internvl::default_system_message());

}  // namespace

TEST_CASE("InternVL original format: system block, <image> expansion, generation prompt") {
  const ChatTemplate chat(internvl::chat_format(true),
                          Tokenizer::load(kFixtures / "tiny-qwen/tokenizer.json"));
  const std::string image = "<img>" + repeat("<IMG_CONTEXT>", 256 * 3) + "</img>";
  CHECK(chat.render("What is the total?", 3) ==
        "<|im_start|>system\n" + kSystem + "<|im_end|>\n<|im_start|>user\n" + image +
            "\nWhat is the total?<|im_end|>\n<|im_start|>assistant\n");
  // A question that places the image itself keeps that place. chat() would expand only the first
  // of two placeholders and leave the second as text; docsift refuses such a prompt instead.
  CHECK(chat.render("Look: <image> here", 1).find("Look: <img><IMG_CONTEXT>") != std::string::npos);
  CHECK(chat.render("Look: <image> here", 1).find("</img> here<|im_end|>") != std::string::npos);
  CHECK_THROWS_WITH_AS(chat.render("Look: <image> and <image>", 1),
                       doctest::Contains("2 \"<image>\" placeholders"), docsift::ConfigError);
  const ChatTemplate custom(internvl::chat_format(true), chat.tokenizer(),
                            std::string("Be terse."));
  CHECK(custom.render("Q", 1).starts_with("<|im_start|>system\nBe terse.<|im_end|>\n"));
}

TEST_CASE("InternVL -hf format equals the original minus the system block") {
  const Tokenizer tokenizer = Tokenizer::load(kFixtures / "tiny-qwen/tokenizer.json");
  const ChatTemplate original(internvl::chat_format(true), tokenizer);
  const ChatTemplate hf(internvl::chat_format(false), tokenizer);
  const std::string system_block = "<|im_start|>system\n" + kSystem + "<|im_end|>\n";
  CHECK(hf.render("Extract the ABN.", 7) ==
        original.render("Extract the ABN.", 7).substr(system_block.size()));
  CHECK(hf.render("Q", 1) == "<|im_start|>user\n<img>" + repeat("<IMG_CONTEXT>", 256) +
                                 "</img>\nQ<|im_end|>\n<|im_start|>assistant\n");
}

TEST_CASE("InternVL prompt ids: one image token per feature, specials as single ids, stop set") {
  const Tokenizer tokenizer = Tokenizer::load(kFixtures / "tiny-qwen/tokenizer.json");
  const ChatTemplate chat(internvl::chat_format(false), tokenizer);
  for (const int tiles : {1, 2, 13}) {
    CAPTURE(tiles);
    const auto ids = chat.encode("What is the invoice total?", tiles);
    CHECK(std::count(ids.begin(), ids.end(), chat.image_token_id()) == 256 * tiles);
    CHECK(ids.front() == *tokenizer.token_to_id("<|im_start|>"));
    CHECK(std::count(ids.begin(), ids.end(), *tokenizer.token_to_id("<img>")) == 1);
    CHECK(std::count(ids.begin(), ids.end(), *tokenizer.token_to_id("</img>")) == 1);
    CHECK(tokenizer.decode(ids) == chat.render("What is the invoice total?", tiles));
  }
  const auto& stops = chat.stop_ids();
  CHECK(std::find(stops.begin(), stops.end(), *tokenizer.token_to_id("<|im_end|>")) != stops.end());
  CHECK(std::find(stops.begin(), stops.end(), *tokenizer.token_to_id("<|endoftext|>")) !=
        stops.end());
  CHECK_THROWS_AS(chat.render("Q", 0), docsift::Error);
  // Text before the placeholder stays before the image; a second placeholder is refused.
  const std::string placed = chat.render("Page 1: <image>\nWhat is the total?", 1);
  CHECK(placed.find("Page 1: <img>") != std::string::npos);
  CHECK_THROWS_WITH_AS(chat.render("<image><image>", 1), doctest::Contains("keep one"),
                       docsift::ConfigError);
}

TEST_CASE("Llama 3.2 Vision: BOS exactly once even when the tokenizer's post-processor adds one") {
  const Tokenizer tokenizer = Tokenizer::load(kFixtures / "tiny-llama/tokenizer.json");
  const ChatTemplate chat(mllama::chat_format(), tokenizer);
  const std::string prompt = chat.render("What is the total?", /*num_tiles=*/4);
  CHECK(prompt ==
        "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\n<|image|>What is the "
        "total?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n");
  const int32_t bos = *tokenizer.token_to_id("<|begin_of_text|>");
  const auto ids = chat.encode("What is the total?", 4);
  CHECK(std::count(ids.begin(), ids.end(), bos) == 1);
  CHECK(ids.front() == bos);
  const auto image = std::find(ids.begin(), ids.end(), chat.image_token_id());
  REQUIRE(image != ids.end());
  CHECK(std::count(ids.begin(), ids.end(), chat.image_token_id()) ==
        1);  // Llama does not expand it
  CHECK(tokenizer.decode(std::vector<int32_t>(ids.begin(), image)) ==
        "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\n");
  // The image goes where the question puts "<image>"; two placeholders are refused.
  CHECK(chat.render("Read this: <image> What is the total?", 4) ==
        "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nRead this: <|image|> What is "
        "the total?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n");
  CHECK_THROWS_WITH_AS(chat.render("<image> and <image>", 4),
                       doctest::Contains("2 \"<image>\" placeholders"), docsift::ConfigError);
  // The file's template would add a second BOS: the reason chat templates encode without it.
  const auto doubled = tokenizer.encode(prompt, /*add_special_tokens=*/true);
  CHECK(std::count(doubled.begin(), doubled.end(), bos) == 2);
  const auto& stops = chat.stop_ids();
  for (const char* stop : {"<|eot_id|>", "<|end_of_text|>", "<|eom_id|>"}) {
    CHECK(std::find(stops.begin(), stops.end(), *tokenizer.token_to_id(stop)) != stops.end());
  }
}

TEST_CASE("a tokenizer from the other family is refused with the missing token named") {
  const Tokenizer llama = Tokenizer::load(kFixtures / "tiny-llama/tokenizer.json");
  CHECK_THROWS_WITH_AS(ChatTemplate(internvl::chat_format(true), llama),
                       doctest::Contains("has no token \"<|im_start|>\""), docsift::FileError);
  const Tokenizer qwen = Tokenizer::load(kFixtures / "tiny-qwen/tokenizer.json");
  CHECK_THROWS_WITH_AS(ChatTemplate(mllama::chat_format(), qwen),
                       doctest::Contains("\"<|begin_of_text|>\""), docsift::FileError);
}

TEST_CASE(
    "Qwen2.5-VL: the checkpoint's template, one <|image_pad|> per merged patch, the vision block "
    "before the question") {
  const Tokenizer tokenizer =
      Tokenizer::load(fs::path(DOCSIFT_SOURCE_DIR) / "tests/fixtures/qwen25vl/hub/tokenizer.json");
  const ChatTemplate chat(docsift::family::qwen25vl::chat_format(), tokenizer);
  CHECK(chat.render("What is the total?", 3) ==
        "<|im_start|>system\nYou are a helpful "
        "assistant.<|im_end|>\n<|im_start|>user\n<|vision_start|>" +
            repeat("<|image_pad|>", 3) +
            "<|vision_end|>What is the total?<|im_end|>\n<|im_start|>assistant\n");
  CHECK(chat.render("Read: <image> now", 1)
            .find("Read: <|vision_start|><|image_pad|><|vision_end|> now") != std::string::npos);
  const auto ids = chat.encode("Q", 15);
  CHECK(std::count(ids.begin(), ids.end(), chat.image_token_id()) == 15);
  CHECK(chat.image_token_id() == *tokenizer.token_to_id("<|image_pad|>"));
  const auto& stops = chat.stop_ids();
  CHECK(std::find(stops.begin(), stops.end(), *tokenizer.token_to_id("<|im_end|>")) != stops.end());
  CHECK_THROWS_AS(chat.render("Q", 0), docsift::Error);
  // The InternVL tokenizer has ChatML but not the vision tokens.
  CHECK_THROWS_WITH_AS(ChatTemplate(docsift::family::qwen25vl::chat_format(),
                                    Tokenizer::load(kFixtures / "tiny-qwen/tokenizer.json")),
                       doctest::Contains("\"<|vision_start|>\""), docsift::FileError);
}
