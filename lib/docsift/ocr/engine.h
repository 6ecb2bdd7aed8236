// The OCR engine: a page → the schema's fields, with no model weights. A PDF page's own text
// layer is used where it is usable (read_words); otherwise Tesseract reads the page image
// (reader.h). The rules (rules.h, configs/fields/ocr-rules.yaml) then turn the lines into fields.
// `run` uses it through batch::OcrReader exactly as it uses a model family: the same records,
// journal, CSV and eval.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <opencv2/core/mat.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "docsift/ocr/calibration.h"
#include "docsift/ocr/known_names.h"
#include "docsift/ocr/line_recognizer.h"
#include "docsift/ocr/page_crops.h"
#include "docsift/ocr/reader.h"
#include "docsift/ocr/rules.h"
#include "docsift/ocr/settings.h"

namespace docsift::ocr {

// Whether a field belongs to a document type (the schema's `applies_to`, which batch/ocr_reader.cpp
// gives): a value the rules read for a field the page's type does not have (a statement's first
// transaction date as INVOICE_DATE, its closing figure as TOTAL) is left N/A, as a model under keys
// decoding writes only its type's fields (docs/ocr.md, "Fields of another type"). Null: every
// field belongs to every type.
using AppliesTo = std::function<bool(const std::string& field, const std::string& type)>;

class Engine {
 public:
  // Loads the rules and Tesseract's language data; throws docsift::ConfigError / FileError.
  // `second`: the second recognizer for ocr.recognizer: both (batch/ makes it; none: Tesseract
  // only).
  explicit Engine(const Settings& settings, std::unique_ptr<LineRecognizer> second = nullptr,
                  AppliesTo applies = nullptr);

  struct Result {
    std::map<std::string, std::string> fields;
    std::string text;         // the page's lines as read
    std::string text_source;  // "pdf" (the page's own text layer) or "ocr"
    nlohmann::json
        info;  // for the record's "engine": tesseract version, confidence, preparation, checks
    std::map<std::string, double> confidence;  // per field found: rules.h's Extraction::confidence
    std::map<std::string, Evidence>
        evidence;  // per field found (rules.h), the second reading's marks added
    // Per field found: the calibrated probability that the value is right (calibration.h); per
    // field left N/A that the calibration has an `absent` model for, that the page prints none.
    std::map<std::string, double> probability;
    std::vector<WordRun> doubtful;  // rules.h: Extraction's
    std::vector<long long>
        sums;  // rules.h: Extraction's; the rereading's and the evened reading's added
    // rules.h: Extraction's; the second reading's where DESCRIPTIONS was taken from it.
    std::vector<LineItem> items;
    // Per field left N/A that the calibration has an `absent` model for: what the page shows of it
    // (page_checks.h: absence_of).
    std::map<std::string, Evidence> absent;
    // The seller's name and address (kAgreedFields) where the calibration weighs `agreed`: the
    // value as pages are compared (known_names.h: words_key) and what agreement adds to its logit,
    // for the run, which counts the pages that read the same (batch/agreement.h); the fields
    // compared at weight 0 likewise, and the date by its year (engine_calibrate.cpp).
    struct Agreeable {
      std::string key;
      double weight = 0;
      std::string registration;  // the seller's: the page's registration (below); else empty
    };
    std::map<std::string, Agreeable> agreeable;
    // The seller's registration number printed at the top of the page, digits alone, as the first
    // reading read it, or where it read none, the words read again or the second reading; empty
    // where none (page_facts.h: PageFacts::registration).
    std::string registration;
  };
  // A page image: Tesseract, then the rules.
  Result read(const cv::Mat& rgb, const std::vector<std::string>& field_names);
  // Words that need no OCR (a PDF's text layer), with boxes in the page's own units.
  Result read_words(std::vector<Word> words, int width, int height,
                    const std::vector<std::string>& field_names);
  // The confidences' parameters (ocr.calibration), for the reader to check against its schema.
  const Calibration& calibration() const { return calibration_; }

 private:
  Result finish(const Page& page, const std::vector<std::string>& field_names, nlohmann::json info);
  // The calibrated probabilities of the fields read, and (ocr.write_evidence) their evidence in
  // info.
  void calibrate(Result& result) const;
  // SUPPLIER against ocr.known_sellers (known_names.h), before calibrate: the value as the list
  // spells it, or a listed name found on `page`'s lines when the value is none of them; then
  // BUSINESS_ADDRESS against the seller's listed addresses (engine_known.cpp).
  void check_known_sellers(Result& result, const Page& page) const;
  // The values of fields the page's DOCUMENT_TYPE does not have (applies_) left N/A, before the
  // page's checks and the confidences; info's "not_of_type" keeps what was read. Nothing on a page
  // without a type, or whose type the rules inferred from its figures (Evidence::inferred).
  void keep_type_fields(Result& result) const;
  // ocr.recognizer: both: each of kCrossReadFields' boxes (page pixels) cut from `rgb` and read by
  // second_, its agreement set in the evidence, and a value taken from it where cross_read.h's
  // rules allow; info's "readers" and "cross_read" say what it read.
  void cross_read(Result& result, PageCrops& crops) const;
  // ... and each table row's description (cross_read_rows below).
  // ocr.recognizer: both: the words the rules doubted (Result::doubtful) read again by second_:
  // the payment lines' amounts where the total is not one the page's sums vouch for, the words
  // shaped like a date where no date was found, the top lines read doubtfully where the seller was
  // too. Each the second reads surely (sure_reading) replaces its words in a copy of `page`, and
  // the rules run again on it: their TOTAL, INVOICE_DATE and SUPPLIER are taken as
  // take_reread_total, take_reread_date and take_reread_seller say. info's "reread" says what was
  // read and what was taken.
  void reread(Result& result, const Page& page, PageCrops& crops, const Prepared& prepared,
              const std::vector<std::string>& field_names);
  Rules rules_;
  KnownNames known_sellers_;
  Calibration calibration_;
  bool write_evidence_;
  DateOrderRule date_order_;
  bool second_reading_;
  std::string
      evened_model_;  // what the second reading reads with: the folder of its model, or "same"
  Reader reader_;
  std::unique_ptr<LineRecognizer> second_;
  AppliesTo applies_;
};

// The second reading (Engine::read), apart so that its rules are tested on records made by hand.
// A page is read again when its TOTAL or INVOICE_DATE is N/A or was read from words of mean
// confidence under kDoubtful, or its SUPPLIER N/A or read under kDoubtfulName (a statement: when
// its period or closing balance is N/A). Then each
// field is taken from the reading that read it; read differently by both, from the one whose words
// it came from were read more confidently, or from the second wherever it read a field when it is
// `clearer` (mean confidence kClearer above the first's). bench/ocr/README.md has the figures: at
// kDoubtful 35, 36 of the 200 receipts are read twice; at 50, 49 pages (before the year rule of
// values_dates.cpp) and 13% more time for one total and one seller more.
constexpr double kDoubtful = 35.0;
// A seller's name, read in a larger type that the fast model misreads more often ("SANYU STAT!"),
// is doubted higher: at 60, 7 more of the 200 receipts are read twice, in no measurable extra time,
// for 3 sellers more and 1 total fewer; on 427 more receipts, 13 pages, 4 sellers and 1 total more,
// 2 dates fewer. At 50: 2 sellers more on the 200, 1 seller more and 1 date fewer on the 427
// (bench/ocr/README.md).
constexpr double kDoubtfulName = 60.0;
constexpr double kClearer = 15.0;
bool wants_second_reading(const Engine::Result& first);
// `field`'s value in `result`, or "N/A" where it has none.
std::string value_or_na(const Engine::Result& result, const std::string& field);
// Whether `result` has `field` and read none (a field not asked for is not unread).
bool unread(const Engine::Result& result, const std::string& field);
// `from`'s `field` into `into`, the one way a value passes from one reading to another: its value
// (N/A where it has none), confidence, evidence and evidence of absence, `into`'s own dropped
// where `from` has none; that evidence's `mark` (Evidence::second_taken, reader_taken) set to
// `marked`.
void put_reading(Engine::Result& into, const Engine::Result& from, const std::string& field,
                 bool Evidence::*mark, bool marked);
struct Taken {
  std::vector<std::string> filled;   // N/A in the first reading
  std::vector<std::string> surer;    // read differently, and more confidently, by the second
  std::vector<std::string> emptied;  // a list the second reading's table, taken, has none of
};
// Merges `second` into `first` (fields, their confidences and evidence; a table whole, from one
// reading: its rows, their checks and the three lists); says what it took, and marks each field's
// evidence with what the second reading said of it (second_reading.cpp). `tesseract`: the
// confidences the second reading is held against, the first reading's as Tesseract gave them
// (first.confidence where null): a value the second recognizer put in since (Engine::reread) has
// its probability, on another scale, and a wrong line read clearly is still the wrong line.
Taken take_second_reading(Engine::Result& first, const Engine::Result& second, bool clearer,
                          const std::map<std::string, double>* tesseract = nullptr);

// A box in the pixels of the page as read (halved, deskewed, turned: reader.h) → the page's own
// pixels (`width` × `height` as read), so that a reviewer's tool can draw it on the image as given
// and the second recognizer cuts it from there.
Box to_page(const Box& box, const Prepared& prepared, int width, int height);
// Every box of `result` so: its fields' evidence (box and parts) and its rows' (box, evidence,
// price word).
void boxes_to_page(Engine::Result& result, const Prepared& prepared, int width, int height);
// Every box of `result` (as boxes_to_page) turned 180° within the `width` × `height` page as read:
// a reading of the page the other way up than the reading whose Prepared will map them. The
// evened second reading decides which way up it reads on its own (the 427's 399.jpg: the first
// reading, 5 faint words, turned; the evened one upright), and its values are taken into the
// first's result.
void turn_boxes(Engine::Result& result, int width, int height);

// The cross-reading of a table's rows (Engine::cross_read), apart so that its rules are tested with
// readings typed in. Each row's description (its words: Evidence::parts) read by `read`, compared
// (readings_agree, kind list), and where they differ settled letter by letter as an address is
// (substituted_name) into the row and DESCRIPTIONS, while DESCRIPTIONS is its rows' descriptions
// joined; the rows' evidence and the list's marked: reader_agreed where every row read agreed,
// reader_taken where the others were each settled, neither (reader_disagreed) otherwise. What it
// read for the record ("rows", "agreed", "taken", and per other row its "description", "read" and
// "taken"), or nullopt where DESCRIPTIONS is N/A or no row was read.
std::optional<nlohmann::json> cross_read_rows(
    Engine::Result& result,
    const std::function<std::optional<LineText>(const std::vector<Box>&)>& read,
    const Lexicon& lexicon);

// ... and each row's price: the word of its PRICES entry (LineItem::price_box) read, and compared
// as amounts are (readings_agree); PRICES' evidence marked reader_agreed where every row read
// agreed, reader_disagreed otherwise (nothing is taken: a sum or a row's product decides a figure).
// What it read ("rows", "agreed", and per other row its "price" and the second's "read"), or
// nullopt where PRICES is N/A, is not one entry per row, or no row's price was read.
std::optional<nlohmann::json> cross_read_prices(
    Engine::Result& result,
    const std::function<std::optional<LineText>(const std::vector<Box>&)>& read,
    const Lexicon& lexicon);

// The re-reading of doubtful words (Engine::reread), apart so that its rules are tested with
// readings typed in. Whether a result's TOTAL is one its page's sums vouch for.
bool vouched_total(const Engine::Result& result);
struct Reread {
  Page page;  // the page with the words read again put in
  // The boxes (page as read) whose words were replaced, and the field each was read for.
  std::vector<std::pair<Box, std::string>> replaced;
  std::vector<Box> replaced_for(const std::string& field) const;
  nlohmann::json words;  // per run read: for, was, read, score, used; top to bottom
};
// The text a second reading of `run` puts in, where it is sure: for TOTAL one amount with cents
// (spaces dropped: "42. 50") at a mean probability ≥ kAmountSure; for INVOICE_DATE one date (a
// time glued on set apart: unglued_time) at ≥ kDateSure; for SUPPLIER 4 letters or more at ≥
// kLetterSure (cross_read.h); for QUANTITIES a number (digits, a decimal's point) at ≥ kAmountSure,
// for PRICES as for TOTAL. nullopt otherwise.
std::optional<std::string> sure_reading(const WordRun& run, const LineText& second,
                                        const Lexicon& lexicon, DateOrder order);
// `page` with the words of each of `runs` (in reading order, as Extraction::doubtful is) replaced
// by what `sure` makes of `read`'s reading of their box.
Reread read_again(
    const Page& page, const std::vector<WordRun>& runs,
    const std::function<std::optional<LineText>(const Box&)>& read,
    const std::function<std::optional<std::string>(const WordRun&, const LineText&)>& sure);
// Whether a result's SUPPLIER was read from words under kNameDoubt (rule_text.h).
bool doubtful_seller(const Engine::Result& result);
// The top of the box a result's SUPPLIER was read from; nullopt where it has none.
std::optional<int> seller_top(const Engine::Result& result);
// Takes `again`'s SUPPLIER into `first` where it differs, was read from `replaced` (the boxes of
// the top lines replaced), and `first` had none or a doubtful one, or `again`'s was read above
// `first`'s (with a company form where `first`'s has one); marks its evidence reader_taken.
// Whether it took it.
bool take_reread_seller(Engine::Result& first, const Engine::Result& again,
                        const std::vector<Box>& replaced);
// Takes `again`'s INVOICE_DATE (the rules on the page read_again gave) into `first` where `first`
// had none; marks its evidence reader_taken. Whether it took it.
bool take_reread_date(Engine::Result& first, const Engine::Result& again);
// Whether a result's rows are a receipt's that neither add up nor each check
// (`engine.checks.rows_unchecked`, find_steps.cpp).
bool rows_unchecked(const Engine::Result& result);
// `from`'s checks of its rows into `first`, whose rows were just taken from `from`: a statement's
// balance check (`balance`, `balance_off`) and `rows_unchecked`, those `from` lacks erased.
void take_rows_checks(Engine::Result& first, const Engine::Result& from);
// Takes `again`'s rows (items, and DESCRIPTIONS, QUANTITIES and PRICES with their evidence) into
// `first` where `replaced` (the boxes of misread figures, TableRow::Misread) is not empty and
// `again` read as many rows with more of their quantities and prices; marks the lists' evidence
// reader_taken. Whether it took them.
bool take_reread_items(Engine::Result& first, const Engine::Result& again,
                       const std::vector<Box>& replaced);
// Takes `again`'s TOTAL (the rules on the page read_again gave) into `first` where it differs and
// `first` had none, or the page's sums vouch for it, or it was read from `replaced` (the boxes of
// the payment lines' words replaced); marks its
// evidence reader_taken. Whether it took it.
bool take_reread_total(Engine::Result& first, const Engine::Result& again,
                       const std::vector<Box>& replaced);

}  // namespace docsift::ocr
