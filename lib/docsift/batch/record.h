// The run's records and summary are the journal layer's (journal/record.h), which eval reads
// without the run; batch/ names them as its own.
#pragma once

#include "docsift/journal/record.h"

namespace docsift::batch {

using journal::check_journal_record;
using journal::Record;
using journal::Summary;

}  // namespace docsift::batch
