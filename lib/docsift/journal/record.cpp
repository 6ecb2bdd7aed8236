#include "docsift/journal/record.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>

#include "docsift/error.h"
#include "docsift/io/journal.h"
#include "docsift/journal/get_or.h"
#include "docsift/journal/record_marks.h"
#include "docsift/json_fields.h"

namespace docsift::journal {
namespace {

using json = nlohmann::json;
using detail::get_or;

// A record's "document": its page count (1 or more) and its fields' page rules by name.
Record::Document document_of(const json& j) {
  if (!j.is_object())
    throw io::BadRecord("\"document\" is " + std::string(j.type_name()) + ", not an object");
  Record::Document d;
  d.pages = get_or<int>(j, "pages", 0);
  if (d.pages < 1)
    throw io::BadRecord("\"document\": \"pages\" is " + std::to_string(d.pages) +
                        ", not a page count");
  const auto rules = j.find("rules");
  if (rules == j.end() || rules->is_null()) return d;
  if (!rules->is_object()) throw io::BadRecord("\"document\": \"rules\" is not an object");
  for (const auto& [field, rule] : rules->items()) {
    if (!rule.is_string())
      throw io::BadRecord("\"document\": the rule of " + field + " is not a string");
    try {
      d.rules[field] = extract::parse_page_rule(rule.get<std::string>());
    } catch (const std::exception& e) {
      throw io::BadRecord("\"document\": " + field + ": " + e.what());
    }
  }
  return d;
}

// A probability as the run writes it: a finite number in [0, 1].
bool is_probability(const json& v) {
  if (!v.is_number()) return false;
  const double p = v.get<double>();
  return p >= 0 && p <= 1;  // false for NaN too
}

// The cells of a row of line_items but its description, each named as its column (ocr/table.h's
// names).
constexpr std::array<std::pair<const char*, std::optional<std::string> Record::LineItem::*>, 7>
    kItemCells{{{"quantity", &Record::LineItem::quantity},
                {"unit_price", &Record::LineItem::unit_price},
                {"amount", &Record::LineItem::amount},
                {"date", &Record::LineItem::date},
                {"debit", &Record::LineItem::debit},
                {"credit", &Record::LineItem::credit},
                {"balance", &Record::LineItem::balance}}};

json line_items_json(const std::vector<Record::LineItem>& items) {
  json out = json::array();
  for (const auto& item : items) {
    json row = {{"description", item.description}, {"box", item.box}};
    for (const auto& [name, cell] : kItemCells) {
      if (item.*cell) row[name] = *(item.*cell);
    }
    if (item.confidence) row["confidence"] = *item.confidence;
    out.push_back(std::move(row));
  }
  return out;
}

std::vector<Record::LineItem> line_items_of(const json& j) {
  if (!j.is_array()) throw io::BadRecord("\"line_items\" is not an array");
  std::vector<Record::LineItem> out;
  for (const json& row : j) {
    if (!row.is_object()) throw io::BadRecord("\"line_items\": a row is not an object");
    Record::LineItem item;
    item.description = get_or<std::string>(row, "description", "");
    for (const auto& [name, cell] : kItemCells) {
      if (row.contains(name)) item.*cell = get_or<std::string>(row, name, "");
    }
    if (row.contains("box")) {
      const json& b = row["box"];
      if (!b.is_array() || b.size() != 4 ||
          !std::all_of(b.begin(), b.end(), [](const json& v) { return v.is_number_integer(); }))
        throw io::BadRecord("\"line_items\": a row's box is not four integers");
      for (std::size_t k = 0; k < 4; ++k) item.box[k] = b[k].get<int>();
    }
    if (row.contains("confidence") && !row["confidence"].is_null()) {
      if (!is_probability(row["confidence"]))
        throw io::BadRecord("\"line_items\": a row's confidence is not a number in [0, 1]");
      item.confidence = row["confidence"].get<double>();
    }
    out.push_back(std::move(item));
  }
  return out;
}

// What a record must hold for --resume, the CSV and the summary to read it; "" when it does.
std::string record_problem(const json& r) {
  if (!r.is_object()) return "not a JSON object";
  if (!r.contains("file") || !r["file"].is_string()) return "record has no \"file\" string";
  if (r.contains("file_bytes") && !r["file_bytes"].is_string())
    return "\"file_bytes\" must be a string";
  const auto* status = r.contains("status") ? &r["status"] : nullptr;
  if (status == nullptr || !status->is_string() ||
      (*status != "ok" && *status != "failed" && *status != "gone")) {
    return "\"status\" must be \"ok\", \"failed\" or \"gone\"";
  }
  if (*status == "gone") return "";  // a marker: no reading, so no timings or memory
  const auto object = [&](const char* key) { return r.contains(key) && r[key].is_object(); };
  if (!object("timings_s")) return "\"timings_s\" must be an object";
  if (!object("memory")) return "\"memory\" must be an object";
  if (*status == "ok") {
    if (!object("fields")) return "\"fields\" must be an object";
    if (!r.contains("tier") || !r["tier"].is_string()) return "\"tier\" must be a string";
    if (!object("tokens") || !r["tokens"].contains("generated") ||
        !r["tokens"]["generated"].is_number_integer()) {
      return "\"tokens.generated\" must be an integer";
    }
  }
  return "";
}

// A record's confidences, review list and boxes (docs/confidence.md), into `r`: absent in older
// journals; present, they are checked, since the tables and the review queue are built from them.
// Every command reads them here, so that run --resume, merge, report and eval accept and refuse the
// same records.
void read_confidences(const json& j, Record& r) {
  const auto bad = [&](const std::string& key, const char* want) {
    return io::BadRecord("\"" + key + "\" must be " + want);
  };
  if (j.contains("confidence") && !j["confidence"].is_null()) {
    if (!j["confidence"].is_object())
      throw bad("confidence", "an object of field: a number in [0, 1]");
    r.confidence.emplace();
    for (const auto& [name, value] : j["confidence"].items()) {
      if (!is_probability(value)) throw bad("confidence." + name, "a number in [0, 1]");
      (*r.confidence)[name] = value.get<double>();
    }
  }
  if (j.contains("document_type_confidence") && !j["document_type_confidence"].is_null()) {
    if (!is_probability(j["document_type_confidence"]))
      throw bad("document_type_confidence", "a number in [0, 1]");
    r.document_type_confidence = j["document_type_confidence"].get<double>();
  }
  if (j.contains("review") && !j["review"].is_null()) {
    if (!j["review"].is_array()) throw bad("review", "a list of field names");
    r.review.emplace();
    for (const auto& name : j["review"]) {
      if (!name.is_string()) throw bad("review", "a list of field names");
      r.review->push_back(name.get<std::string>());
    }
  }
  if (j.contains("review_reasons") && !j["review_reasons"].is_null()) {
    if (!j["review_reasons"].is_object()) throw bad("review_reasons", "an object of field: reason");
    r.review_reasons.emplace();
    for (const auto& [name, why] : j["review_reasons"].items()) {
      if (!why.is_string()) throw bad("review_reasons." + name, "a string");
      (*r.review_reasons)[name] = why.get<std::string>();
    }
  }
  if (j.contains("review_thresholds") && !j["review_thresholds"].is_null()) {
    if (!j["review_thresholds"].is_object())
      throw bad("review_thresholds", "an object of field: a number in [0, 1]");
    r.review_thresholds.emplace();
    for (const auto& [name, value] : j["review_thresholds"].items()) {
      if (!value.is_number() || !std::isfinite(value.get<double>()))
        throw bad("review_thresholds." + name, "a number");
      (*r.review_thresholds)[name] = value.get<double>();
    }
  }
  if (j.contains("line_items") && !j["line_items"].is_null())
    r.line_items = line_items_of(j["line_items"]);
  if (j.contains("boxes") && !j["boxes"].is_null()) {
    if (!j["boxes"].is_object()) throw bad("boxes", "an object of field: [x, y, width, height]");
    r.boxes.emplace();
    for (const auto& [name, box] : j["boxes"].items()) {
      // Integers that fit an int, a width and height not negative: the report draws them.
      const auto fits = [](const json& v, long long low) {
        return v.is_number_integer() && v.get<long long>() >= low && v.get<long long>() <= INT_MAX;
      };
      if (!box.is_array() || box.size() != 4 || !fits(box[0], INT_MIN) || !fits(box[1], INT_MIN) ||
          !fits(box[2], 0) || !fits(box[3], 0)) {
        throw bad("boxes." + name,
                  "[x, y, width, height], integers, width and height not negative");
      }
      (*r.boxes)[name] = {box[0].get<int>(), box[1].get<int>(), box[2].get<int>(),
                          box[3].get<int>()};
    }
  }
}

}  // namespace

Record Record::failure(std::string error) {
  Record r;
  r.error = std::move(error);
  r.memory = json::object();
  return r;
}

Record Record::gone_marker(std::string file, std::optional<std::string> file_bytes,
                           std::string why) {
  Record r;
  r.status = Status::Gone;
  r.file = std::move(file);
  r.file_bytes = std::move(file_bytes);
  r.error = std::move(why);
  return r;
}

json Record::to_json() const {
  json j = json::object();
  j["file"] = file;
  if (file_bytes) j["file_bytes"] = *file_bytes;
  if (document) {
    j["document"] = {{"pages", document->pages}, {"rules", json::object()}};
    for (const auto& [field, rule] : document->rules)
      j["document"]["rules"][field] = std::string(extract::to_string(rule));
  }
  j["config_hash"] = config_hash;
  if (source) {
    j["source"] = {{"size", source->size}, {"mtime_ns", source->mtime_ns}};
    if (source->hash) j["source"]["hash"] = *source->hash;
  }
  if (!started_at.empty()) j["started_at"] = started_at;
  if (!finished_at.empty()) j["finished_at"] = finished_at;
  j["status"] = ok() ? "ok" : gone() ? "gone" : "failed";
  if (!ok()) j["error"] = error;
  if (!tier.empty()) j["tier"] = tier;
  if (text_source) j["text_source"] = *text_source;
  if (warning) j["warning"] = *warning;
  if (fields) j["fields"] = *fields;
  if (raw_response) j["raw_response"] = *raw_response;
  if (decoding) j["decoding"] = *decoding;
  if (confidence) j["confidence"] = *confidence;
  if (document_type_confidence) j["document_type_confidence"] = *document_type_confidence;
  if (review) j["review"] = *review;
  if (review_reasons) j["review_reasons"] = *review_reasons;
  if (review_thresholds) j["review_thresholds"] = *review_thresholds;
  if (boxes) j["boxes"] = *boxes;
  if (line_items) j["line_items"] = line_items_json(*line_items);
  write_marks(*this, j);
  if (tokens) {
    j["tokens"] = {{"prompt", tokens->prompt}, {"generated", tokens->generated}};
    if (tokens->forced) j["tokens"]["forced"] = tokens->forced;
  }
  j["timings_s"] = timings_s;
  for (const auto& [key, value] : {std::pair<const char*, const json*>{"image", &image},
                                   {"plan", &plan},
                                   {"attempts", &attempts},
                                   {"model", &model},
                                   {"engine", &engine},
                                   {"memory", &memory},
                                   {"worker", &worker}}) {
    if (!value->is_null()) j[key] = *value;
  }
  return j;
}

namespace {

// A record of any source; io::BadRecord naming the key when it is not one.
Record parse_record(const json& j) {
  if (!j.is_object() || !j.contains("file") || !j["file"].is_string())
    throw io::BadRecord("a record without a string \"file\"");
  Record r;
  r.file = j["file"].get<std::string>();
  if (j.contains("file_bytes") && j["file_bytes"].is_string())
    r.file_bytes = j["file_bytes"].get<std::string>();
  if (j.contains("document") && !j["document"].is_null()) r.document = document_of(j["document"]);
  r.config_hash = get_or<std::string>(j, "config_hash", "");
  if (j.contains("source") && j["source"].is_object()) {
    const json& s = j["source"];
    r.source = io::SourceStamp{get_or<std::uint64_t>(s, "size", 0),
                               get_or<std::int64_t>(s, "mtime_ns", 0), std::nullopt};
    if (s.contains("hash")) r.source->hash = get_or<std::string>(s, "hash", "");
  }
  r.started_at = get_or<std::string>(j, "started_at", "");
  r.finished_at = get_or<std::string>(j, "finished_at", "");
  const std::string status = get_or<std::string>(j, "status", "");
  r.status = status == "ok"     ? Record::Status::Ok
             : status == "gone" ? Record::Status::Gone
                                : Record::Status::Failed;
  r.error = get_or<std::string>(j, "error", "");
  r.tier = get_or<std::string>(j, "tier", "");
  if (j.contains("text_source")) r.text_source = get_or<std::string>(j, "text_source", "");
  if (j.contains("warning")) r.warning = get_or<std::string>(j, "warning", "");
  if (j.contains("fields") && j["fields"].is_object()) {
    r.fields.emplace();
    // Values a model wrote are strings; anything else is kept as its JSON text.
    for (const auto& [name, value] : j["fields"].items()) {
      (*r.fields)[name] = value.is_string() ? value.get<std::string>() : value.dump();
    }
  }
  if (j.contains("raw_response")) r.raw_response = get_or<std::string>(j, "raw_response", "");
  if (j.contains("tokens") && j["tokens"].is_object()) {
    r.tokens = Record::Tokens{get_or<std::int64_t>(j["tokens"], "prompt", 0),
                              get_or<std::int64_t>(j["tokens"], "generated", 0),
                              get_or<std::int64_t>(j["tokens"], "forced", 0)};
  }
  if (j.contains("decoding")) r.decoding = get_or<std::string>(j, "decoding", "");
  read_confidences(j, r);
  read_marks(j, r);
  if (j.contains("timings_s") && j["timings_s"].is_object()) {
    for (const auto& [stage, seconds] : j["timings_s"].items()) {
      if (seconds.is_number()) r.timings_s[stage] = seconds.get<double>();
    }
  }
  for (const auto& [key, value] : {std::pair<const char*, json*>{"image", &r.image},
                                   {"plan", &r.plan},
                                   {"attempts", &r.attempts},
                                   {"model", &r.model},
                                   {"engine", &r.engine},
                                   {"memory", &r.memory},
                                   {"worker", &r.worker}}) {
    if (j.contains(key)) *value = j[key];
  }
  return r;
}

}  // namespace

Record Record::from_json(const json& j, const std::string& where) {
  try {
    return parse_record(j);
  } catch (const io::BadRecord& e) {
    throw MalformedInputError(where + ": " + e.what());
  }
}

Record Record::from_journal(const json& j) {
  if (const std::string problem = record_problem(j); !problem.empty()) throw io::BadRecord(problem);
  return parse_record(j);
}

void check_journal_record(const json& j, std::uint64_t /*offset*/) {
  (void)Record::from_journal(j);
}

}  // namespace docsift::journal
