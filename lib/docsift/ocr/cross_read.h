// Cross-reading (ocr.recognizer: both; docs/ocr.md): the box of each value the rules chose is read
// again by a second, trained recognizer (line_recognizer.h), and the two readings compared as the
// field's kind compares values. Agreement is evidence for the value's confidence (calibration.h:
// reader_agreed, reader_disagreed); a disagreement the rules can settle takes the second reading.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "docsift/ocr/line_recognizer.h"
#include "docsift/ocr/rules.h"
#include "docsift/ocr/values.h"

namespace docsift::ocr {

// The fields cross-read: the ones a reader checks first and the rules most often misread, and
// the seller's address, whose many words are each a chance of a misread letter. Not the payer's
// name and address, nor the account holder: their boxes hold their labels and the next column's
// words ("Customer Jordan Smith", "... QLD 4000Acct: 67312046"), so the two readings seldom agree
// on a right value (docs/ocr.md).
inline constexpr const char* kCrossReadFields[] = {"TOTAL", "INVOICE_DATE", "SUPPLIER",
                                                   "BUSINESS_ADDRESS"};

// Whether values of calibration kind `kind` are compared and settled as names are (letters and
// digits): text, and the addresses' own kind.
inline bool name_kind(const std::string& kind) { return kind == "text" || kind == "address"; }

// The edits between the letters and digits of `value` and those of the start of `read` (the
// reading may run on past the value: "… SDN BHD (1248717-W)") that needs fewest, case aside, per
// letter or digit of `value`; 0 for a value with none.
double reading_gap(const std::string& value, const std::string& read);

// `read` with a space put between a date and a time read with none between them
// ("2018-03-1813:18:48" → "2018-03-18 13:18:48", "10/03/20185:41" → "10/03/2018 5:41").
std::string unglued_time(const std::string& read);

// Whether `read` (the second recognizer's text of the value's box) says `value`: for an amount,
// an amount of the same cents in it; for a date, the same day read either order; otherwise the
// same letters and digits (known_names.h: name_key), case, spaces and punctuation aside
// ("SANYU STATIONERY" = "SANYUSTATIONERY"),
// the second reading allowed to run on past them ("… SDN BHD (1248717-W)"); for a list (a row's
// description, `read` the reading of the row's lines) the same letters and digits anywhere in it
// ("2 Coffee beans 1kg $12.00" says "Coffee beans 1kg", not "Coffee beans lkg").
// `kind`: calibration.h's field kinds (amount, date, text, id, list).
bool readings_agree(const std::string& kind, const std::string& value, const std::string& read,
                    const Lexicon& lexicon);

// The value the second reading gives for an amount or a date, where it gives exactly one: the one
// amount with cents in it, or the one date (read as `order`). nullopt when it gives none or
// several, and for other kinds (a name is settled letter by letter: substituted_name).
std::optional<std::string> second_value(const std::string& kind, const std::string& read,
                                        const Lexicon& lexicon, DateOrder order);

// A name read by Tesseract (`value`) with the letters the second recognizer read otherwise put in,
// where the two differ by a few letters: "SANYO STATIONERY SHOP" and "SANYU STATIONERYSHOP" give
// "SANYU STATIONERY SHOP" (Tesseract's spaces and punctuation, the recognizer's letters). The two
// are aligned letter by letter (letters, digits and '&'; the least edits, case aside), and each
// letter is settled alone: one the second reads in place of another, or one it reads that
// Tesseract missed ("'SH POWER" → "'TSH POWER"), is put in where read with probability ≥ `sure`
// and not a digit for a letter; otherwise Tesseract's stays. One Tesseract read that the second did
// not is never taken out (the recognizer drops faint letters: "LIAN" read "LAN"). One letter
// missed at a word's end goes after that word ("JIAWE" → "JIAWEI"), more before the next. An
// initial Tesseract read glued to the letter beside it is split where the second reads a space
// between them ("CW KHOO" → "C W KHOO"). The second reading may run on past the name (a
// registration number), not start elsewhere (one letter before it at most); at most one change in
// kNameEditsPer letters. With `digits` (an address, whose unit, floor and section numbers mix
// digits into words: "3RD FLR", "U5/BM", OCR's "SRD", "US/BM") a sure digit for a letter is put in
// too, in a word with a digit or first or last in one of at most three letters, but no O for a zero
// between digits. nullopt when nothing is put in, or the two are not that close.
// bench/ocr/README.md has how the limits were chosen on the 200 and the 427.
inline constexpr int kNameEditsPer = 3;
std::optional<std::string> substituted_name(const std::string& value, const std::string& read,
                                            const std::vector<float>& probabilities, double sure,
                                            bool digits = false);

// Which value a field keeps when the second reading differs: the second's where the rules can
// tell that the first misread, nullopt to keep the first. An amount whose printed sums do not vouch
// for it (nor is it among `sums`, what the page's printed figures sum to: Engine::Result::sums) and
// whose words Tesseract read under kAmountDoubt, read by the second as one amount with cents at a
// mean probability ≥ kAmountSure (in the first's currency), or read by the second as an amount
// among `sums` at ≥ kAmountSummedSure; a date read under kDateDoubt, read by the second as one date
// at ≥ kDateSure; a name as substituted_name puts it, each letter at ≥ kLetterTaken (an address
// with its digits).
// bench/ocr/README.md has how they were chosen and what each gains.
inline constexpr double kAmountDoubt = 80, kAmountSure = 0.85;
inline constexpr double kAmountSummedSure = 0.7;
inline constexpr double kDateDoubt = 90, kDateSure = 0.95;
// A letter of a name or an address the second reading puts in, alone (substituted_name): at 0.8
// against 0.9, the 427 development receipts gained 2 sellers and 8 addresses and lost none, the 200
// gained and lost one of each (bench/ocr/README.md). kLetterSure, a whole seller's reading that
// replaces doubted words (engine_reread.cpp), stays at 0.9.
inline constexpr double kLetterTaken = 0.8;
inline constexpr double kLetterSure = 0.9;
std::optional<std::string> settle(const std::string& kind, const std::string& value,
                                  const Evidence& evidence, const std::vector<long long>& sums,
                                  const LineText& second, const Lexicon& lexicon, DateOrder order);

}  // namespace docsift::ocr
