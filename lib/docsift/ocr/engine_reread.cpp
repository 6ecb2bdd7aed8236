// Words the rules doubted, read again by the second recognizer (Engine::reread; engine.h): which
// readings are sure enough to put in, the page with them put in, and which of the rules' values on
// that page are taken.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "docsift/ocr/cross_read.h"
#include "docsift/ocr/engine.h"
#include "docsift/ocr/rule_text.h"

namespace docsift::ocr {

namespace {

bool inside_any(const Box& at, const std::vector<Box>& boxes) {
  return std::any_of(boxes.begin(), boxes.end(), [&](const Box& b) { return b.holds(at); });
}

// `again`'s `field` into `first` (put_reading, marked reader_taken) where `again` has a value for
// `field` other than `first`'s, with its evidence, and `allowed(first's value, again's evidence)`.
// Whether it took it.
bool take_field(Engine::Result& first, const Engine::Result& again, const std::string& field,
                const std::function<bool(const std::string&, const Evidence&)>& allowed) {
  const auto before = first.fields.find(field);
  const auto after = again.fields.find(field);
  const auto e = again.evidence.find(field);
  if (before == first.fields.end() || after == again.fields.end() || e == again.evidence.end() ||
      after->second == "N/A" || after->second == before->second ||
      !allowed(before->second, e->second)) {
    return false;
  }
  put_reading(first, again, field, &Evidence::reader_taken, true);
  return true;
}

}  // namespace

bool vouched_total(const Engine::Result& result) {
  const auto e = result.evidence.find("TOTAL");
  return e != result.evidence.end() && e->second.sums_agree;
}

std::optional<std::string> sure_reading(const WordRun& run, const LineText& second,
                                        const Lexicon& lexicon, DateOrder order) {
  if (run.field == "SUPPLIER") {
    if (second.mean < kLetterSure || detail::letters_in(second.text) < 4) return std::nullopt;
    return second.text;
  }
  // The words that go back on the page as read (the rules parse them again), where second_value
  // finds one date, or one amount with cents, in them.
  if (run.field == "INVOICE_DATE") {
    if (second.mean < kDateSure || !second_value("date", second.text, lexicon, order))
      return std::nullopt;
    return unglued_time(second.text);
  }
  std::string text = second.text;
  text.erase(std::remove(text.begin(), text.end(), ' '),
             text.end());           // one word: "42. 50" is 42.50
  if (run.field == "QUANTITIES") {  // a count: digits, a decimal's point or comma among them
    const bool count = !text.empty() && std::isdigit(static_cast<unsigned char>(text.front())) &&
                       std::isdigit(static_cast<unsigned char>(text.back())) &&
                       text.find_first_not_of("0123456789.,") == std::string::npos;
    return count && second.mean >= kAmountSure ? std::optional(text) : std::nullopt;
  }
  if (second.mean < kAmountSure || !second_value("amount", text, lexicon, order))
    return std::nullopt;
  return text;
}

std::vector<Box> Reread::replaced_for(const std::string& field) const {
  std::vector<Box> out;
  for (const auto& [box, of] : replaced) {
    if (of == field) out.push_back(box);
  }
  return out;
}

Reread read_again(
    const Page& page, const std::vector<WordRun>& runs,
    const std::function<std::optional<LineText>(const Box&)>& read,
    const std::function<std::optional<std::string>(const WordRun&, const LineText&)>& sure) {
  Reread out{page, {}, nlohmann::json::array()};
  // Words are read once: of runs that overlap (a top line that is also a payment line), the first
  // in `runs`' reading order is kept, so that replacing one run's words never moves another's.
  std::vector<WordRun> once = runs;
  const auto overlaps = [](const WordRun& a, const WordRun& b) {
    return a.line == b.line && b.first <= a.last;
  };
  once.erase(std::unique(once.begin(), once.end(), overlaps), once.end());
  // Back to front, so that taking a line's words out keeps the indices of those before them.
  for (auto it = once.rbegin(); it != once.rend(); ++it) {
    std::vector<Word>& words = out.page.lines.at(it->line).words;
    if (it->first >= words.size()) continue;
    Box box = words[it->first].box;
    std::string was;
    for (std::size_t w = it->first; w <= it->last && w < words.size(); ++w) {
      box = box.with(words[w].box);
      append_joined(was, " ", words[w].text);
    }
    const std::optional<LineText> second = read(box);
    if (!second) continue;
    const std::optional<std::string> text = sure(*it, *second);
    out.words.insert(out.words.begin(),
                     nlohmann::json{{"for", it->field},
                                    {"was", was},
                                    {"read", second->text},
                                    {"score", std::round(second->mean * 1000) / 1000},
                                    {"used", text.has_value()}});
    if (!text) continue;
    words[it->first] = Word{*text, box, static_cast<float>(100 * second->mean)};
    words.erase(words.begin() + static_cast<long>(it->first) + 1,
                words.begin() + static_cast<long>(std::min(it->last + 1, words.size())));
    out.replaced.push_back({box, it->field});
  }
  return out;
}

bool doubtful_seller(const Engine::Result& result) {
  const auto e = result.evidence.find("SUPPLIER");
  return e != result.evidence.end() && e->second.word_mean < detail::kNameDoubt;
}

std::optional<int> seller_top(const Engine::Result& result) {
  const auto e = result.evidence.find("SUPPLIER");
  const auto v = result.fields.find("SUPPLIER");
  if (e == result.evidence.end() || v == result.fields.end() || v->second == "N/A")
    return std::nullopt;
  return e->second.box.top;
}

bool take_reread_seller(Engine::Result& first, const Engine::Result& again,
                        const std::vector<Box>& replaced) {
  const std::optional<int> top = seller_top(first);
  const auto was = first.evidence.find("SUPPLIER");
  const bool legal = was != first.evidence.end() && was->second.legal;
  return take_field(first, again, "SUPPLIER", [&](const std::string& before, const Evidence& e) {
    // A line above the seller's that reads as a name once read again: the page's heading, which
    // Tesseract misread, over an address or a branch ("JLN ULU KELANG" under "PETRODELI
    // ENTERPRISE"). Not a brand's logo over a legal name ("BASKIN ROBBINS" over "Golden Scoop Sdn
    // Bhd"): a legal name gives way to a legal name only.
    const bool above = top && e.box.bottom <= *top && (!legal || e.legal);
    return (before == "N/A" || doubtful_seller(first) || above) && inside_any(e.box, replaced);
  });
}

bool take_reread_date(Engine::Result& first, const Engine::Result& again) {
  return take_field(first, again, "INVOICE_DATE",
                    [](const std::string& before, const Evidence&) { return before == "N/A"; });
}

bool rows_unchecked(const Engine::Result& result) {
  const auto checks = result.info.find("checks");
  return checks != result.info.end() && checks->is_object() &&
         checks->value("rows_unchecked", false);
}

void take_rows_checks(Engine::Result& first, const Engine::Result& from) {
  nlohmann::json& checks = first.info["checks"];
  if (!checks.is_object()) checks = nlohmann::json::object();
  const auto theirs = from.info.find("checks");
  for (const char* key : {"balance", "balance_off", "rows_unchecked"}) {
    if (theirs != from.info.end() && theirs->is_object() && theirs->contains(key)) {
      checks[key] = theirs->at(key);
    } else {
      checks.erase(key);
    }
  }
}

bool take_reread_items(Engine::Result& first, const Engine::Result& again,
                       const std::vector<Box>& replaced) {
  const auto cells = [](const std::vector<LineItem>& items) {
    std::size_t n = 0;
    for (const LineItem& i : items) n += i.quantity.has_value() + (i.unit_price || i.amount);
    return n;
  };
  if (replaced.empty() || again.items.size() != first.items.size() ||
      cells(again.items) <= cells(first.items))
    return false;
  for (const char* list : {"DESCRIPTIONS", "QUANTITIES", "PRICES"}) {
    if (again.fields.count(list)) put_reading(first, again, list, &Evidence::reader_taken, true);
  }
  first.items = again.items;
  take_rows_checks(first, again);
  return true;
}

bool take_reread_total(Engine::Result& first, const Engine::Result& again,
                       const std::vector<Box>& replaced) {
  const bool taken =
      take_field(first, again, "TOTAL", [&](const std::string& before, const Evidence& e) {
        return before == "N/A" || vouched_total(again) || inside_any(e.box, replaced);
      });
  if (taken) {
    first.info["checks"] =
        again.info.contains("checks") ? again.info["checks"] : nlohmann::json::object();
    first.sums.insert(first.sums.end(), again.sums.begin(),
                      again.sums.end());  // the sums of the reading it came from
  }
  return taken;
}

}  // namespace docsift::ocr
