// The OCR rules' shared text helpers (ocr/ only, not part of rules.h): label matching, the page's
// segments, what a value of each kind parses to, names as printed. Defined in rule_text.cpp (the
// names in rule_names.cpp); the field steps (field_finder.h) and the loader use them.
#pragma once

#include <cstddef>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "docsift/ocr/page.h"
#include "docsift/ocr/rules.h"
#include "docsift/ocr/values.h"

namespace docsift::ocr::detail {

bool word_char(char c);
bool has_letters(std::string_view s);
// How many ASCII letters, and how many digits, `s` holds.
std::size_t letters_in(std::string_view s);
std::size_t digits_in(std::string_view s);
// `fixed` (lower case) in the case of `word`: all capitals when it is, else its first letter's
// case.
std::string in_case_of(const std::string& word, std::string fixed);
// Where `phrase` occurs in `text` (both lower case) as whole words, from `from`.
std::size_t find_phrase(const std::string& text, const std::string& phrase, std::size_t from = 0);
// Whether `read` is `word` (both lower case) with one "m" read as the two strokes it is printed
// with ("rn", "ni", "in", "nn": "Aniount" for Amount, "Sinith") or one "rn" read as an "m"
// ("Melboume"): one edit by its look, two by the letters, so edit distance alone misses it.
bool strokes_misread(std::string_view read, std::string_view word);

// A rounding moves a bill by less than one unit of its currency: a larger amount on a rounding
// line is a misread (the "0.92" of a "0.02") or the rounded total itself ("Rounding RM 45.35").
constexpr long long kMaxRounding = 50;
// A payment line's amount read from a word under this confidence (Tesseract's 0-100) is read again
// by a second recognizer where there is one (FieldFinder::doubtful_amounts, engine.h).
constexpr float kAmountWordDoubt = 90.0f;
// More digits than this is a number, not a receipt's amount (8: 999,999.99).
constexpr std::size_t kMaxAmountDigits = 8;
// On a page with no date found, the words shaped like one that a second recognizer reads again.
constexpr std::size_t kMaxDateRereads = 4;
// The words after a date's label read again as one run: a date and its time, with a word split off.
constexpr std::size_t kMaxLabelledDateWords = 3;
constexpr char kDateSeparators[] = {'/', '-', '.'};
// More digits than this in one word is an id, not a date ("2018-03-18" has 8).
constexpr std::size_t kMaxDateDigits = 8;
// A top line read under this (Tesseract's 0-100) may be the seller's, misread: up to
// kMaxNameRereads of them are read again by a second recognizer where the seller's own words were
// read under it too (bench/ocr/README.md: 70 against 75 and 80).
constexpr double kNameDoubt = 70.0;
constexpr std::size_t kMaxNameRereads = 4;
// The top of a page, where a seller's name is looked for (and its doubtful lines read again), as
// a share of the page's height.
constexpr double kTopOfPage = 0.35;

// A line read with less confidence than this (Tesseract's 0-100) is not taken for a name.
constexpr double kNameConfidence = 55.0;

struct Piece {
  std::string word;  // alnum_of the token
  std::size_t begin, end;
};

// One label found on a line: which rule, and where its value starts and ends.
struct Hit {
  std::size_t rule;
  std::size_t at, end;        // the label
  int strength = 0;           // the label's, for TOTAL
  std::size_t value_end = 0;  // the next label on the line, or the line's end
  bool fuzzy = false;  // matched only with an edit ("T0TAL"): evidence for the value's confidence
};

// What the rules read: segments, the pieces of a line between gaps wider than kColumnGap line
// heights (so that two columns side by side are read apart), each with its label hits.
constexpr double kColumnGap = 2.0;
// A table word this short and this doubtful (Tesseract's 0-100) is a speck of noise.
constexpr float kSpeckConfidence = 50.0f;
struct Segment {
  std::string text, lowered;
  std::vector<Hit> hits;
  std::size_t line;  // index in page.lines
  int block, top, left, right;
  int height = 0;           // the median word's: a speck or a '|' does not make a line prominent
  double confidence = 100;  // the words' mean (Tesseract's 0-100)
};

std::vector<Piece> pieces_of(const std::string& text);
// The kinds a labelled field may have (rule_text.cpp's table), and their names for messages.
bool known_kind(std::string_view kind);
std::string kind_names();
// A value of `kind` read from `text`, as the kind's row of the table parses it.
std::optional<std::string> parse_kind(const std::string& kind, const std::string& text,
                                      const Lexicon& lexicon, DateOrder order);
// A seller's name as printed, without its registration number or a lead-in.
std::string name_of(const std::string& text);
// Whether `name` is company forms alone ("SDN BHD", "Pty Ltd": the rules' company_forms, each
// word with its punctuation aside): no seller's name, though printed on a line of its own under
// many a name (and a list made from values read, `docsift review sellers`, can hold one).
bool forms_alone(const std::string& name, const Rules& rules);
// Whether `lowered` (lowercase) holds one of `phrases` as whole words (find_phrase).
bool has_phrase(const std::string& lowered, const std::vector<std::string>& phrases);
// Whether `text` (any case) has one of the rules' company forms as whole words ("Sdn Bhd", "GmbH").
bool has_company_form(const std::string& text, const Rules& rules);
// A postcode: four or five digits on their own.
extern const std::regex kPostcode;
// Whether an address shows that it stops short of its whole: it has no postcode, starts at its
// postcode (the lines above it missed), or ends with a comma. On the development receipts (the
// shipped build, 2026-11-30) 21 of the 26 addresses read so were wrong, 70 of the other 162 (the
// 427 more: 49 of 57, 139 of 344).
bool address_cut(const std::string& address);
// Defined in find_address.cpp. Whether an address shows where it ends: its last words, less a
// postcode after them, name a region, a country or one of the home country's cities ("…, 47500
// Subang Jaya, Selangor", "Hobart TAS 7000"). An address read to its end is right far more often
// than one that stops on a street or a town the rules do not know (docs/confidence.md).
bool address_ended(const std::string& address, const Rules& rules);
std::vector<Segment> segments_of(const Page& page, const Rules& rules);
// Defined in find_address.cpp, which reads addresses most; the payer's (find_parties.cpp) too.
// The segment's text up to the first label of a number that is no address's (an ABN, a BSB, an
// account, a phone: "7 Elizabeth Street, Hobart TAS 7000 Account number 69811066", the next
// column read into the line where the gap between was narrow); all of it when none.
std::string before_number_label(const Segment& segment, const Rules& rules);
// An address line without its lead-in label ("Address: 44 Rundle Mall" → " 44 Rundle Mall"):
// one of `labels` (lower case) before its first colon.
std::string without_address_label(const std::string& t, const std::vector<std::string>& labels);
// The labels of `rules` found in `lowered` (lower case), left to right, the longest where several
// overlap.
std::vector<Hit> label_hits(const std::string& lowered, const Rules& rules);

}  // namespace docsift::ocr::detail
