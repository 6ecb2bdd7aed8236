// What a page's own arithmetic says against its values, in words a reviewer can act on:
// review.csv's `check` column and the report's table read it from here. The OCR engine records its
// checks in the record's `engine.checks` (docs/ocr.md, "Line items"): the table's rows against the
// subtotal or total (`table`: sum, against, difference, `made_of`: the lists whose figures the sum
// is made of, and `products`: rows whose quantity × unit price is not their amount), a statement's
// opening balance + transactions against its closing balance (`balance`, and `balance_off` when
// they disagree). SUBTOTAL + GST against TOTAL is read from the fields themselves, as the review
// queue reads it (extract/review_queue.h). A statement whose balances add up is not held against a
// subtotal or total read on it.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "docsift/extract/review_queue.h"
#include "docsift/journal/record.h"

namespace docsift::journal {

// One disagreement: the fields it speaks against, and what it says ("the rows' amounts sum to
// 3,524.00, 4,721.42 under TOTAL").
struct Disagreement {
  std::vector<std::string> fields;
  std::string says;
  bool of_table = false;  // the table's rows (or a statement's) disagree, not the fields alone
};

// Every disagreement the record's checks and fields show; none for a record without them (a
// model's page, an older journal). Agreement is not listed.
std::vector<Disagreement> page_disagreements(const Record& record);

// What the table's arithmetic found to agree (the rows' amounts and the subtotal, quantity × unit
// price, a statement's balances), in words; the report lists them beside the disagreements.
std::vector<std::string> table_agreements(const Record& record);

// The fields the table's own arithmetic speaks against (the disagreements `of_table`): the review
// queue's "rows disagree" (extract/review_queue.h), which run and eval both take from here. A
// rows' sum under its figure names QUANTITIES and PRICES whatever it is made of (a row missed);
// the queue takes those a page has.
std::set<std::string> table_disagreement_fields(const Record& record);

// The review queue's doubts of the record beyond its values (extract/review_queue.h): the table's
// (table_disagreement_fields), and the values other pages of the run read near alike with other
// digits (Record::Agreement::disputed; batch/agreement.h), a value a person corrected aside.
extract::PageDoubts page_doubts(const Record& record);

// What the page's arithmetic says against `field`, the disagreements joined by "; "; empty when it
// says nothing against it.
std::string disagreement_about(const std::vector<Disagreement>& all, const std::string& field);

}  // namespace docsift::journal
