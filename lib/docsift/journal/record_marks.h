// The keys a journal record gains after its page is read (record.h): a person's corrections
// (`docsift review apply`, batch/corrections.h) and the run's count of pages that agree
// (batch/agreement.h). record.cpp's to_json and from_journal write and read them here, with the
// same rules: a key of the wrong shape is an io::BadRecord naming it.
#pragma once

#include <nlohmann/json.hpp>

#include "docsift/journal/record.h"

namespace docsift::journal {

// `corrections` and `agreement` of `j` into `r` (whose status and fields are read already): each an
// object on an ok record, each entry one of its fields.
void read_marks(const nlohmann::json& j, Record& r);
// ... and back: `corrections` and `agreement` into `j` where `r` has them.
void write_marks(const Record& r, nlohmann::json& j);

}  // namespace docsift::journal
