#include "docsift/ocr/engine.h"

#include <algorithm>
#include <cmath>

namespace docsift::ocr {
namespace {

DateOrderRule date_order_of(const std::string& s) {
  return s == "dmy" ? DateOrderRule::Dmy : s == "mdy" ? DateOrderRule::Mdy : DateOrderRule::Auto;
}

}  // namespace

Engine::Engine(const Settings& config)
    : rules_(load_rules(config.rules)),
      date_order_(date_order_of(config.date_order)),
      reader_({config.language, config.deskew, config.page_segmentation, config.threads}) {}

Engine::Result Engine::read(const cv::Mat& rgb, const std::vector<std::string>& field_names) {
  Prepared prepared;
  const Page page = reader_.read(rgb, &prepared);
  const auto round1 = [](double v) { return std::round(v * 10) / 10; };
  nlohmann::json info = {{"name", "ocr"},
                         {"tesseract", Reader::version()},
                         {"words", page.words()},
                         {"mean_confidence", round1(page.mean_confidence)},
                         {"prepared",
                          {{"deskew_degrees", std::round(prepared.deskew_degrees * 100) / 100},
                           {"turned_180", prepared.turned}}}};
  Result out = finish(page, field_names, std::move(info));
  out.text_source = "ocr";
  return out;
}

Engine::Result Engine::read_words(std::vector<Word> words, int width, int height,
                                  const std::vector<std::string>& field_names) {
  const Page page = layout_page(std::move(words), width, height);
  Result out = finish(page, field_names, {{"name", "ocr"}, {"words", page.words()}});
  out.text_source = "pdf";
  return out;
}

Engine::Result Engine::finish(const Page& page, const std::vector<std::string>& field_names,
                              nlohmann::json info) {
  Extraction e = extract_fields(page, rules_, field_names, date_order_);
  Result out{std::move(e.fields), std::move(e.text), {}, std::move(info)};
  out.info["checks"] = e.checks;
  // Why a page gave nothing, for the record (every field is then N/A).
  if (page.words() == 0) {
    out.info["reason"] = "no text found: a blank page, or a photo without printed text";
  } else if (std::all_of(out.fields.begin(), out.fields.end(),
                         [](const auto& f) { return f.second == "N/A"; })) {
    out.info["reason"] = "text found (" + std::to_string(page.words()) +
                         " words, mean confidence " +
                         std::to_string(static_cast<int>(page.mean_confidence)) +
                         ") but no field: not a business document, or unreadable";
  }
  return out;
}

}  // namespace docsift::ocr
