#include "docsift/ocr/engine.h"

#include <cmath>

namespace docsift::ocr {

Engine::Engine(const config::OcrConfig& config)
    : rules_(load_rules(config.rules)), reader_({config.language, config.deskew}) {}

Engine::Result Engine::read(const cv::Mat& rgb, const std::vector<std::string>& field_names) {
  Prepared prepared;
  const Page page = reader_.read(rgb, &prepared);
  Extraction e = extract_fields(page, rules_, field_names);
  Result out{std::move(e.fields), std::move(e.text), nlohmann::json::object()};
  const auto round1 = [](double v) { return std::round(v * 10) / 10; };
  out.info = {{"name", "ocr"},
              {"tesseract", Reader::version()},
              {"words", page.words()},
              {"mean_confidence", round1(page.mean_confidence)},
              {"prepared", {{"deskew_degrees", std::round(prepared.deskew_degrees * 100) / 100},
                            {"turned_180", prepared.turned}}},
              {"checks", e.checks}};
  // Why a page gave nothing, for the record (every field is then N/A).
  if (page.words() == 0) {
    out.info["reason"] = "no text found: a blank page, or a photo without printed text";
  } else if (std::all_of(out.fields.begin(), out.fields.end(), [](const auto& f) { return f.second == "N/A"; })) {
    out.info["reason"] = "text found (" + std::to_string(page.words()) + " words, mean confidence " +
                         std::to_string(static_cast<int>(page.mean_confidence)) +
                         ") but no field: not a business document, or unreadable";
  }
  return out;
}

}  // namespace docsift::ocr
