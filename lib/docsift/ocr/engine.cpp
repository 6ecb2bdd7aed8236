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
      second_reading_(config.second_reading),
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
  // A page that left its total or its date unread (faint or unevenly lit print, as a rule) is
  // read once more, evened out (reader.h), and the fields the first reading left N/A are taken
  // from the second; a second reading far clearer than the first (mean confidence kClearer
  // higher) is taken wherever it read a field. On the 200 receipts 28 pages were read twice,
  // TOTAL 0.790 → 0.810 and INVOICE_DATE 0.840 → 0.855; none of them was kClearer more
  // confident, and at 5 points three sellers were lost (bench/ocr/README.md).
  constexpr double kClearer = 15.0;
  const auto unread = [&](const char* field) {
    const auto it = out.fields.find(field);
    return it != out.fields.end() && it->second == "N/A";
  };
  // A statement has no total or invoice date; its own keys are its period and closing balance.
  const auto type = out.fields.find("DOCUMENT_TYPE");
  const bool statement = type != out.fields.end() && type->second == "BANK STATEMENT";
  const bool wanting = statement ? unread("STATEMENT_PERIOD") || unread("CLOSING_BALANCE")
                                 : unread("TOTAL") || unread("INVOICE_DATE");
  if (second_reading_ && page.words() > 0 && wanting) {
    const Page again = reader_.read(rgb, nullptr, true);
    const Result second = finish(again, field_names, nlohmann::json::object());
    const bool clearer = again.mean_confidence > page.mean_confidence + kClearer;
    nlohmann::json filled = nlohmann::json::array();
    for (auto& [name, value] : out.fields) {
      const auto it = second.fields.find(name);
      if ((value == "N/A" || clearer) && it != second.fields.end() && it->second != "N/A" && it->second != value) {
        value = it->second;
        filled.push_back(name);
      }
    }
    out.info["second_reading"] = {{"evened", true},
                                  {"words", again.words()},
                                  {"mean_confidence", round1(again.mean_confidence)},
                                  {"clearer", clearer},  // taken wherever it read a field
                                  {"filled", filled}};
    if (!filled.empty()) out.text += "\f" + second.text;  // both readings, for the record
  }
  return out;
}

Engine::Result Engine::read_words(std::vector<Word> words, int width, int height,
                                  const std::vector<std::string>& field_names) {
  Page page = layout_page(std::move(words), width, height);
  page.exact = true;
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
