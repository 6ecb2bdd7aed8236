#include "docsift/ocr/engine.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>

#include "docsift/data_folder.h"
#include "docsift/error.h"
#include "docsift/ocr/cross_read.h"
#include "docsift/ocr/page_checks.h"
#include "docsift/ocr/rule_text.h"

namespace docsift::ocr {
namespace {

DateOrderRule date_order_of(const std::string& s) {
  return s == "dmy" ? DateOrderRule::Dmy : s == "mdy" ? DateOrderRule::Mdy : DateOrderRule::Auto;
}

// The first language of ocr.language that `folder` has no .traineddata file for; "" when it has
// all.
std::string missing_language(const std::filesystem::path& folder, const std::string& languages) {
  std::error_code ec;
  for (const std::string& language : language_list(languages)) {
    if (!std::filesystem::is_regular_file(folder / (language + ".traineddata"), ec))
      return language;
  }
  return "";
}

// ocr.evened_model → a folder of language data for the second reading, or "" for the first
// reading's own. auto: where scripts/setup.sh puts tessdata's larger English model (.deps/tessdata
// in the checkout, found from the build folder's docsift, its tests/ and bench/), or where
// `cmake --install` copies it (share/docsift/tessdata); a folder that lacks a language of
// ocr.language is passed over. A folder named explicitly must have them all.
std::string evened_data(const Settings& config) {
  if (config.evened_model == "none") return "";
  if (config.evened_model != "auto") {
    const std::string missing = missing_language(config.evened_model, config.language);
    if (!missing.empty()) {
      throw ConfigError(
          "ocr.evened_model " + config.evened_model + ": no " + missing +
          ".traineddata there; name a folder of Tesseract language data, or auto or none");
    }
    return config.evened_model;
  }
  return data_folder("tessdata", [&](const std::filesystem::path& folder) {
    return missing_language(folder, config.language).empty();
  });
}

}  // namespace

// Whether `result` has `field` and read none (a field not asked for is not unread).
bool unread(const Engine::Result& result, const std::string& field) {
  const auto it = result.fields.find(field);
  return it != result.fields.end() && it->second == "N/A";
}

// `field`'s value in `result`, or "N/A" where it has none.
std::string value_or_na(const Engine::Result& result, const std::string& field) {
  const auto it = result.fields.find(field);
  return it == result.fields.end() ? "N/A" : it->second;
}

void put_reading(Engine::Result& into, const Engine::Result& from, const std::string& field,
                 bool Evidence::*mark, bool marked) {
  into.fields[field] = value_or_na(from, field);
  into.confidence.erase(field);
  into.evidence.erase(field);
  into.absent.erase(field);
  if (const auto c = from.confidence.find(field); c != from.confidence.end())
    into.confidence[field] = c->second;
  if (const auto e = from.evidence.find(field); e != from.evidence.end()) {
    into.evidence[field] = e->second;
    into.evidence[field].*mark = marked;
  }
  if (const auto a = from.absent.find(field); a != from.absent.end())
    into.absent[field] = a->second;
}

Engine::Engine(const Settings& config, std::unique_ptr<LineRecognizer> second, AppliesTo applies)
    : rules_(load_rules(config.rules)),
      known_sellers_(KnownNames::load(config.known_sellers)),
      calibration_(load_calibration(config.calibration)),
      write_evidence_(config.write_evidence),
      date_order_(date_order_of(config.date_order)),
      second_reading_(config.second_reading),
      reader_({config.language, config.deskew, config.page_segmentation, evened_data(config)}),
      second_(std::move(second)),
      applies_(std::move(applies)) {
  if (config.finder != rules_.finder.source) rules_.finder = load_finder(config.finder);
  evened_model_ = reader_.evened_data().empty() ? "same" : reader_.evened_data();
}

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
                           {"turned_180", prepared.turned},
                           {"scale", prepared.scale}}}};
  Result out = finish(page, field_names, std::move(info));
  out.text_source = "ocr";
  // A page that left its total or its date unread or doubtful (faint or unevenly lit print, as a
  // rule) is read once more, evened out and with the larger model where there is one (reader.h),
  // and the two readings merged (take_second_reading). Decided on Tesseract's first reading, before
  // the second recognizer reads its doubtful words again, so that the pages read twice are the
  // same with it and without it.
  const bool read_twice = second_reading_ && page.words() > 0 && wants_second_reading(out);
  const std::map<std::string, double> tesseract = out.confidence;
  PageCrops crops(rgb, prepared.turned, second_.get());
  // The evened reading is read before the rereading and merged after it, so that every crop the
  // second recognizer reads, the rereading's too, is cut the way up the clearer reading read the
  // page.
  struct Evened {
    Prepared prepared;
    Page page;
    Result result;
    bool clearer;  // mean confidence kClearer above the first reading's
  };
  std::optional<Evened> evened;
  if (read_twice) {
    Prepared how;
    Page again = reader_.read(rgb, &how, true);
    Result second = finish(again, field_names, nlohmann::json::object());
    // Read the other way up than the first reading (each decides alone; the deskew and the scale
    // agree, each reading measuring them alike on the same pixels before it reads): its boxes in
    // the first's frame, which boxes_to_page maps below.
    if (how.turned != prepared.turned) turn_boxes(second, again.width, again.height);
    const bool clearer = again.mean_confidence > page.mean_confidence + kClearer;
    // The second recognizer's crops are cut the way up the clearer reading read the page: the
    // 427's 399.jpg, read turned from 5 faint words (mean 49.5) and upright evened out (106 words,
    // 67.9), had its values cross-read upside down (bench/ocr/README.md).
    if (clearer && how.turned != prepared.turned) crops.turn(how.turned);
    evened = Evened{how, std::move(again), std::move(second), clearer};
  }
  reread(out, page, crops, prepared, field_names);
  if (evened) {
    const Taken taken = take_second_reading(out, evened->result, evened->clearer, &tesseract);
    out.info["second_reading"] = {
        {"evened", true},
        {"model", evened_model_},
        {"words", evened->page.words()},
        {"mean_confidence", round1(evened->page.mean_confidence)},
        {"turned_180", evened->prepared.turned},
        {"crops_turned_180", crops.turned()},  // the second recognizer's crops
        {"clearer", evened->clearer},          // taken wherever it read a field
        {"filled", taken.filled},              // N/A in the first reading
        {"surer", taken.surer}};  // read more surely than in the first, or a table taken whole
    if (!taken.emptied.empty())   // lists of the first reading's table, which gave way
      out.info["second_reading"]["emptied"] = taken.emptied;
    if (!taken.filled.empty() || !taken.surer.empty())
      out.text += "\f" + evened->result.text;  // both readings, for the record
    if (!taken.filled.empty())
      out.info.erase("reason");  // the first reading's, which found nothing
  }
  check_known_sellers(out, page);
  keep_type_fields(out);  // before cross_read: a field left N/A is not read again
  boxes_to_page(out, prepared, page.width, page.height);
  cross_read(out, crops);
  calibrate(out);
  return out;
}

void Engine::reread(Result& out, const Page& page, PageCrops& crops, const Prepared& prepared,
                    const std::vector<std::string>& field_names) {
  if (!second_) return;
  // A total the page's sums vouch for has nothing to gain; a date is looked for where none was
  // found, a seller's line where the seller was doubtful or none, or above the seller's (a faint
  // heading Tesseract misread over the customer's or a branch's line it read well).
  std::vector<WordRun> wanted;
  // Above a seller with a company form, only a line with one can take its place
  // (take_reread_seller): the others are not read.
  const std::optional<int> seller_at = seller_top(out);
  const auto seller_e = out.evidence.find("SUPPLIER");
  const bool legal = seller_e != out.evidence.end() && seller_e->second.legal;
  const auto above_seller = [&](const WordRun& run) {
    const std::vector<Word>& words = page.lines.at(run.line).words;
    if (!seller_at || run.last >= words.size() || words[run.last].box.bottom > *seller_at)
      return false;
    std::string text;
    for (std::size_t w = run.first; w <= run.last; ++w) text += words[w].text + " ";
    return !legal || detail::has_company_form(text, rules_);
  };
  for (const WordRun& run : out.doubtful) {
    const bool none = unread(out, run.field);
    // A table's misread figure is read again wherever it is.
    const bool figure = run.field == "QUANTITIES" || run.field == "PRICES";
    const bool wanted_here = run.field == "TOTAL" ? !vouched_total(out)
                             : run.field == "SUPPLIER"
                                 ? none || doubtful_seller(out) || above_seller(run)
                                 : figure || none;
    if (wanted_here) wanted.push_back(run);
  }
  if (wanted.empty()) return;
  const DateOrder order = date_order_ == DateOrderRule::Mdy ? DateOrder::Mdy : DateOrder::Dmy;
  const auto read = [&](const Box& box) {
    return crops.read(to_page(box, prepared, page.width, page.height));
  };
  const auto sure = [&](const WordRun& run, const LineText& second) {
    return sure_reading(run, second, rules_.lexicon, order);
  };
  const Reread again_read = read_again(page, wanted, read, sure);
  if (again_read.words.empty()) return;
  out.info["reread"] = {{"words", again_read.words}};
  if (again_read.replaced.empty()) return;
  const Result again = finish(again_read.page, field_names, nlohmann::json::object());
  // A registration number in a top line the first reading misread: as the second read it.
  if (out.registration.empty()) out.registration = again.registration;
  const std::string total = value_or_na(out, "TOTAL");
  if (take_reread_total(out, again, again_read.replaced_for("TOTAL")))
    out.info["reread"]["total"] = {{"was", total}, {"now", out.fields.at("TOTAL")}};
  if (take_reread_date(out, again)) out.info["reread"]["date"] = out.fields.at("INVOICE_DATE");
  const std::string seller = value_or_na(out, "SUPPLIER");
  if (take_reread_seller(out, again, again_read.replaced_for("SUPPLIER")))
    out.info["reread"]["seller"] = {{"was", seller}, {"now", out.fields.at("SUPPLIER")}};
  std::vector<Box> cells = again_read.replaced_for("QUANTITIES");
  for (const Box& b : again_read.replaced_for("PRICES")) cells.push_back(b);
  if (take_reread_items(out, again, cells)) out.info["reread"]["rows"] = out.items.size();
}

Engine::Result Engine::read_words(std::vector<Word> words, int width, int height,
                                  const std::vector<std::string>& field_names) {
  Page page = layout_page(std::move(words), width, height);
  page.exact = true;
  Result out = finish(page, field_names, {{"name", "ocr"}, {"words", page.words()}});
  out.text_source = "pdf";
  check_known_sellers(out, page);
  keep_type_fields(out);
  calibrate(out);
  return out;
}

void Engine::keep_type_fields(Result& result) const {
  const std::string type = value_or_na(result, "DOCUMENT_TYPE");
  // A type the rules inferred from the figures ("a total paid for and no balance, so a receipt")
  // says too little to drop what the page printed: a statement whose heading and balance were
  // misread is typed RECEIPT, and its BSB, account and period are right.
  const auto typed = result.evidence.find("DOCUMENT_TYPE");
  if (!applies_ || type == "N/A" || (typed != result.evidence.end() && typed->second.inferred))
    return;
  nlohmann::json dropped = nlohmann::json::object();
  for (auto& [name, value] : result.fields) {
    if (value == "N/A" || applies_(name, type)) continue;
    dropped[name] = value;
    value = "N/A";
    result.confidence.erase(name);
    result.evidence.erase(name);
  }
  if (!dropped.empty()) result.info["not_of_type"] = std::move(dropped);
}

Engine::Result Engine::finish(const Page& page, const std::vector<std::string>& field_names,
                              nlohmann::json info) {
  // The second reading and the rereading call finish with an empty info: only the first reading's
  // candidates and absence evidence are kept (calibrate judges a field still N/A at the end by
  // the first reading's page), so only it works them out.
  const bool first_reading = !info.empty();
  Extraction e = extract_fields(page, rules_, field_names, date_order_);
  Result out{std::move(e.fields),      std::move(e.text),     {}, std::move(info),
             std::move(e.confidence),  std::move(e.evidence), {}, std::move(e.doubtful),
             std::move(e.sums),        std::move(e.items),    {}, {},
             std::move(e.registration)};
  out.info["checks"] = e.checks;
  for (const auto& [field, model] : calibration_.absent) {
    const auto v = out.fields.find(field);
    if (first_reading && v != out.fields.end() && v->second == "N/A")
      out.absent[field] = absence_of(page, rules_, field);
  }
  // What the finder ranked on the first reading (ocr.write_evidence), for
  // bench/ocr/train_finder.py.
  if (write_evidence_ && first_reading) {
    for (const auto& [field, ranked] : e.candidates) {
      nlohmann::json& list = out.info["candidates"][field];
      for (const Ranked& c : ranked) {
        nlohmann::json x = nlohmann::json::object();
        for (const auto& [name, value] : c.features) x[std::string(name)] = value;
        list.push_back({{"value", c.value}, {"p", c.probability}, {"x", std::move(x)}});
      }
    }
  }
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
