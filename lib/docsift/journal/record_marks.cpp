#include "docsift/journal/record_marks.h"

#include <cmath>
#include <map>
#include <optional>
#include <string>

#include "docsift/io/journal.h"

namespace docsift::journal {
namespace {

using json = nlohmann::json;

// j[key] where an ok record may carry an object there: null when it is absent; a BadRecord when it
// is not an object or the record is not ok.
const json* ok_record_object(const json& j, const char* key, const Record& r) {
  if (!j.contains(key) || j[key].is_null()) return nullptr;
  if (!j[key].is_object() || r.status != Record::Status::Ok)
    throw io::BadRecord(std::string("\"") + key + "\" must be an object, on an ok record");
  return &j[key];
}

// A record's corrections (review apply): absent, or field: {"original": string, "at": string} on
// an ok record, each a field of "fields".
void read_corrections(const json& j, Record& r) {
  const json* found = ok_record_object(j, "corrections", r);
  if (!found) return;
  const json& c = *found;
  r.corrections.emplace();
  const auto text = [](const json& one, const char* key) {
    return one.is_object() && one.contains(key) && one[key].is_string();
  };
  for (const auto& [name, one] : c.items()) {
    if (!text(one, "original") || !text(one, "at") || !r.fields || r.fields->count(name) == 0) {
      throw io::BadRecord(
          "\"corrections." + name +
          "\" must be {\"original\": a string, \"at\": a string} of a field of \"fields\"");
    }
    (*r.corrections)[name] =
        Record::Correction{one["original"].get<std::string>(), one["at"].get<std::string>()};
  }
}

// A record's agreement (batch/agreement.h): absent, or field: {"key": a string, "weight": a
// number, "read": a number in [0, 1], "agreed": a boolean, "read_value": a string where the run
// wrote another page's spelling, "disputed": a string where other pages read it otherwise,
// "registration": a string of digits where the page printed its seller's registration number} on
// an ok record, each a field of "fields".
void read_agreement(const json& j, Record& r) {
  const json* found = ok_record_object(j, "agreement", r);
  if (!found) return;
  const json& a = *found;
  r.agreement.emplace();
  const auto finite = [](const json& v) { return v.is_number() && std::isfinite(v.get<double>()); };
  for (const auto& item : a.items()) {
    const json& one = item.value();
    const auto get = [&](const char* key) {
      return one.is_object() ? one.value(key, json()) : json();
    };
    const json key = get("key"), weight = get("weight"), read = get("read"), agreed = get("agreed"),
               read_value = get("read_value"), disputed = get("disputed"),
               registration = get("registration");
    if (!key.is_string() || !finite(weight) || !finite(read) || read.get<double>() < 0 ||
        read.get<double>() > 1 || !agreed.is_boolean() ||
        !(read_value.is_null() || read_value.is_string()) ||
        !(disputed.is_null() || disputed.is_string()) ||
        !(registration.is_null() || registration.is_string()) || !r.fields ||
        !r.fields->count(item.key()))
      throw io::BadRecord("\"agreement." + item.key() +
                          "\" must be {\"key\": a string, \"weight\": a number, \"read\": a "
                          "number in [0, 1], \"agreed\": true or false, \"read_value\", "
                          "\"disputed\" and \"registration\": strings if any} of a field of "
                          "\"fields\"");
    Record::Agreement& out = (*r.agreement)[item.key()];
    out.key = key.get<std::string>();
    out.weight = weight.get<double>();
    out.read = read.get<double>();
    out.agreed = agreed.get<bool>();
    if (read_value.is_string()) out.read_value = read_value.get<std::string>();
    if (disputed.is_string()) out.disputed = disputed.get<std::string>();
    if (registration.is_string()) out.registration = registration.get<std::string>();
  }
}

}  // namespace

void read_marks(const json& j, Record& r) {
  read_corrections(j, r);
  read_agreement(j, r);
}

void write_marks(const Record& r, json& j) {
  for (const auto& [field, c] :
       r.corrections ? *r.corrections : std::map<std::string, Record::Correction>{})
    j["corrections"][field] = {{"original", c.original}, {"at", c.at}};
  for (const auto& [field, a] :
       r.agreement ? *r.agreement : std::map<std::string, Record::Agreement>{}) {
    json& out = j["agreement"][field];
    out = {{"key", a.key}, {"weight", a.weight}, {"read", a.read}, {"agreed", a.agreed}};
    if (a.read_value) out["read_value"] = *a.read_value;
    if (a.disputed) out["disputed"] = *a.disputed;
    if (a.registration) out["registration"] = *a.registration;
  }
}

}  // namespace docsift::journal
