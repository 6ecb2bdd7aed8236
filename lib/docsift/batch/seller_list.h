// `docsift review sellers RESULTS... --out FILE`: a vendor master in ocr.known_sellers' format
// (ocr/known_names.h: a seller's name, and its address after a tab) written from runs a person has
// reviewed, so that the review's corrections teach the next run (docs/confidence.md, "Corrections
// that teach the next run"). A page gives its seller (SUPPLIER) when the run accepted the value or
// a person corrected it, and its address (BUSINESS_ADDRESS) after a tab on the same terms; a
// seller whose address is not so given is written alone. A next run with the list
// (--set ocr.known_sellers=FILE) writes a listed seller and address found on a page as the list
// spells them, and trusts them more (`known`, docs/confidence.md).
#pragma once

#include <filesystem>
#include <vector>

namespace docsift::batch {

struct SellerListOptions {
  std::vector<std::filesystem::path> results;  // output folders of `docsift run` (or merge)
  std::filesystem::path out;                   // the list to write
  // A person worked the runs' whole queues: a queued value left uncorrected was right, and
  // counts as an accepted one.
  bool checked = false;
};

struct SellerListReport {
  int runs = 0;
  int pages = 0;        // ok pages of the runs (each page's latest record)
  int given = 0;        // ... whose seller the list takes (accepted or corrected)
  int unconfirmed = 0;  // ... whose seller is queued and not corrected: left out
  int unfit = 0;        // sellers the list's format cannot hold (over 300 bytes, a leading #)
  int sellers = 0;      // different names written
  int lines = 0;        // lines written
  int addressed = 0;    // ... of them with an address
};

// Reads each folder's journal (every page's latest record; journal/folder.h's journal_to_read
// names the errors), and writes the list atomically (io/output_file.h), sorted: one line per
// seller and address, the seller's spellings within the list's tolerance written as one (the
// spelling most pages gave, a page a person corrected counting half again as much), each of its
// addresses' spellings kept; a seller with no address given, alone. The list is loaded back
// before it is written, so that what is written is one a run accepts.
// Throws ConfigError (exit 2) when FILE is one of the journals read or a run folder's own file,
// or when the list would pass its cap of lines; OutputWriteError (5) when the write fails.
SellerListReport write_seller_list(const SellerListOptions& options);

}  // namespace docsift::batch
