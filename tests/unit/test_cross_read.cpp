// Cross-reading (ocr/cross_read.h, ocr.recognizer: both): when the second recognizer's reading of a
// value's box agrees with the rules' value, and which value a disagreement keeps. The readings here
// are the kinds PP-OCRv4 gave on the development receipts (bench/ocr/README.md), typed in, so that
// each rule is checked on its own; tests/e2e/test_recognizer_run.cpp runs the real recognizer.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "docsift/ocr/calibration.h"
#include "docsift/ocr/cross_read.h"
#include "docsift/ocr/rules.h"

namespace {
using namespace docsift::ocr;

const Lexicon& lexicon() {
  static const Rules rules = load_rules("builtin:ocr-rules");
  return rules.lexicon;
}

LineText reading(const std::string& text, float each) {
  return {text, each, each, std::vector<float>(text.size(), each)};
}

Evidence doubtful(double word_min) {
  Evidence e;
  e.word_min = e.word_mean = word_min;
  return e;
}

}  // namespace

TEST_CASE("cross-read: two readings agree as the field's kind compares values") {
  CHECK(readings_agree("amount", "RM 11.80", "RM11.80", lexicon()));
  CHECK(readings_agree("amount", "11.80", "TOTAL 11. 80", lexicon()));
  CHECK_FALSE(readings_agree("amount", "RM 29.30", "RM30.30", lexicon()));
  CHECK(readings_agree("date", "05/12/2016", "05-12-16", lexicon()));
  CHECK(readings_agree("date", "24/03/2018", "24 Mar 2018", lexicon()));
  CHECK_FALSE(readings_agree("date", "11/06/2018", "11/05/2018", lexicon()));
  // A name: letters and digits only, the second reading allowed to run on (a registration number).
  CHECK(readings_agree("text", "SANYU STATIONERY SHOP", "SANYUSTATIONERYSHOP", lexicon()));
  CHECK(readings_agree("text", "BOON SENG PAPER SDN BHD", "BOON SENG PAPER SDN BHD (1248717-W)",
                       lexicon()));
  CHECK_FALSE(readings_agree("text", "SINNATHAMBY HOLDINGS SDN. BHD.", "SDN. BHD.", lexicon()));
  CHECK_FALSE(readings_agree("text", "", "", lexicon()));
  // The recognizer's full-width bracket and a curly apostrophe are punctuation like any other.
  CHECK(readings_agree("text", "MR. D.I.Y. (M) SDN BHD", "MR.D.I.Y.\uFF08M)SDNBHD", lexicon()));
  CHECK(readings_agree("text", "BERRY\u2019S CARE HOUSE.", "BERRY'S CARE HOUSE", lexicon()));
}

TEST_CASE(
    "cross-read: a doubtful total or date is taken from a sure second reading, never against the "
    "sums") {
  const LineText sure_total = reading("51.00", 0.999f);
  // Tesseract read "$1.00" from words at 54: the second, sure, reads 51.00; the currency stays.
  CHECK(settle("amount", "$1.00", doubtful(54), {}, sure_total, lexicon(), DateOrder::Dmy) ==
        "$51.00");
  // Read at 73 (under kAmountDoubt: "RM 102.00" for 104.00, the 427's 250), taken; at 85 (not
  // doubtful), or vouched for by the printed sums: kept.
  CHECK(settle("amount", "RM 29.30", doubtful(73), {}, reading("RM30.30", 0.999f), lexicon(),
               DateOrder::Dmy) == "RM 30.30");
  CHECK_FALSE(settle("amount", "RM 29.30", doubtful(85), {}, reading("RM30.30", 0.999f), lexicon(),
                     DateOrder::Dmy));
  Evidence summed = doubtful(40);
  summed.sums_agree = true;
  CHECK_FALSE(settle("amount", "$1.00", summed, {}, sure_total, lexicon(), DateOrder::Dmy));
  // An unsure second reading, or one with no amount with cents in it: kept.
  CHECK_FALSE(settle("amount", "$1.00", doubtful(40), {}, reading("51.00", 0.6f), lexicon(),
                     DateOrder::Dmy));
  CHECK_FALSE(settle("amount", "$7.00", doubtful(40), {}, reading("700", 0.99f), lexicon(),
                     DateOrder::Dmy));
  // A second reading that the printed sums make (the 200's 734: "64.80" read at 30 beside
  // "Total Sales (Excluding GST) 5142" and "Total GST 3.08", read again "54.50" at 0.81): taken
  // though less sure than kAmountSure, and over a first read surely; not under kAmountSummedSure.
  Evidence made = doubtful(30);
  const std::vector<long long> sums_to_second{5450}, sums_to_first{6480};
  CHECK(settle("amount", "64.80", made, sums_to_second, reading("54.50w", 0.81f), lexicon(),
               DateOrder::Dmy) == "54.50");
  made.word_min = 95;
  CHECK(settle("amount", "64.80", made, sums_to_second, reading("54.50", 0.81f), lexicon(),
               DateOrder::Dmy) == "54.50");
  CHECK_FALSE(settle("amount", "64.80", made, sums_to_second, reading("54.50", 0.65f), lexicon(),
                     DateOrder::Dmy));
  CHECK_FALSE(settle("amount", "64.80", made, sums_to_first, reading("54.50", 0.81f), lexicon(),
                     DateOrder::Dmy));
  // Dates: a doubtful one, a sure second reading of one date.
  CHECK(settle("date", "11/06/2018", doubtful(76), {}, reading("11/05/2018", 0.999f), lexicon(),
               DateOrder::Dmy) == "11/05/2018");
  CHECK_FALSE(settle("date", "11/06/2018", doubtful(90), {}, reading("11/05/2018", 0.999f),
                     lexicon(), DateOrder::Dmy));
  CHECK_FALSE(settle("date", "04/06/2000", doubtful(59), {}, reading("04-06-201", 0.995f),
                     lexicon(), DateOrder::Dmy));
  CHECK_FALSE(
      settle("id", "12345", doubtful(10), {}, reading("12346", 1.0f), lexicon(), DateOrder::Dmy));
  // An address (its own calibration kind) is settled as a name is, letter by letter.
  CHECK(name_kind("address"));
  CHECK_FALSE(name_kind("amount"));
  const std::string address = "No 8, Jalan 7/118B, Desa Tun Razal 56000 Kuala Lumpur";
  const std::string read = "No 8,Jalan 7/118B,Desa Tun Razak 56000 Kuala Lumpur";
  CHECK(settle("address", address, doubtful(80), {}, reading(read, 0.99f), lexicon(),
               DateOrder::Dmy) == "No 8, Jalan 7/118B, Desa Tun Razak 56000 Kuala Lumpur");
  CHECK(readings_agree("address", address, "No 8,Jalan 7/118B,Desa Tun Razal 56000 Kuala Lumpur",
                       lexicon()));
  // An address takes a sure digit for a letter (a floor's or a section's number: "SRD", "US/BM"),
  // which a name never does.
  const std::string floor = "SRD FLR, JALAN BULAN BM US/BM";
  const std::string floor_read = "3RD FLR, JALAN BULAN BM U5/BM";
  CHECK(settle("address", floor, doubtful(80), {}, reading(floor_read, 0.99f), lexicon(),
               DateOrder::Dmy) == floor_read);
  CHECK_FALSE(settle("text", floor, doubtful(80), {}, reading(floor_read, 0.99f), lexicon(),
                     DateOrder::Dmy));
  // Nor an O for a zero between two digits: a postcode read "7o00" stays 7000.
  CHECK_FALSE(settle("address", "Hobart TAS 7000", doubtful(80), {},
                     reading("Hobart TAS 7o00", 0.99f), lexicon(), DateOrder::Dmy));
  // An address has no initials to split: "301 Q ueen" read for "301 Queen" is not taken.
  CHECK_FALSE(settle("address", "301 Queen Street", doubtful(80), {},
                     reading("301 Q ueen Street", 0.99f), lexicon(), DateOrder::Dmy));
  // Nor inside a short word of letters: "GST" read "G5T" keeps its S.
  CHECK_FALSE(settle("address", "{GST Reg No. 001492992000) No 8", doubtful(80), {},
                     reading("(G5T Reg No. 001492992000) No 8", 0.99f), lexicon(), DateOrder::Dmy));
  // Not in a word of letters: "DAMANSARA" read "DA1ANSARA" keeps its M.
  CHECK_FALSE(settle("address", "JALAN SS21/58 DAMANSARA UTAMA", doubtful(80), {},
                     reading("JALAN SS21/58 DA1ANSARA UTAMA", 0.99f), lexicon(), DateOrder::Dmy));
}

TEST_CASE(
    "cross-read: a name keeps Tesseract's spaces and takes the second reading's sure letters") {
  const auto sure = [](const std::string& text) { return std::vector<float>(text.size(), 0.99f); };
  CHECK(substituted_name("SANYO STATIONERY SHOP", "SANYU STATIONERYSHOP",
                         sure("SANYU STATIONERYSHOP"), kLetterTaken) == "SANYU STATIONERY SHOP");
  CHECK(substituted_name("WR, D.I.Y. (KUCHAT) SDN BHD", "MR.D.I.Y.(KUCHAI) SDN BHD",
                         sure("MR.D.I.Y.(KUCHAI) SDN BHD"),
                         kLetterTaken) == "MR, D.I.Y. (KUCHAI) SDN BHD");
  // Four changes in 12 letters and digits are allowed (one in kNameEditsPer), five are too many.
  CHECK(substituted_name("WR. D.T.Y. (M) SON BHD", "MR. D.I.Y. (M) SDN BHD",
                         sure("MR. D.I.Y. (M) SDN BHD"), kLetterTaken) == "MR. D.I.Y. (M) SDN BHD");
  CHECK_FALSE(substituted_name("WR. D.T.Y. (N) SON BHO", "MR. D.I.Y. (M) SDN BHD",
                               sure("MR. D.I.Y. (M) SDN BHD"), kLetterTaken));
  // Through settle, a name's letter read at 0.85 is put in (the engine takes letters at 0.8, not
  // 0.9: "SANYO" → "SANYU" on two receipts of the 627), one at 0.75 is not.
  CHECK(settle("text", "SANYO STATIONERY SHOP", doubtful(80), {},
               reading("SANYU STATIONERY SHOP", 0.85f), lexicon(),
               DateOrder::Dmy) == "SANYU STATIONERY SHOP");
  CHECK_FALSE(settle("text", "SANYO STATIONERY SHOP", doubtful(80), {},
                     reading("SANYU STATIONERY SHOP", 0.75f), lexicon(), DateOrder::Dmy));
  // Each letter is settled alone: the sure M is put in, the unsure D is not.
  std::vector<float> one_unsure = sure("MR. D.I.Y. (M) SDN BHD");
  one_unsure[16] = 0.78f;  // the D of SDN, under kLetterTaken
  CHECK(substituted_name("WR. D.I.Y. (M) SON BHD", "MR. D.I.Y. (M) SDN BHD", one_unsure,
                         kLetterTaken) == "MR. D.I.Y. (M) SON BHD");
  // An initial glued to the next letter is split where the second reading splits it (the 200's
  // 609); a word the second reading splits is not (its 725: "S&Y STAT IONERY").
  CHECK(substituted_name("CW KHOO HARDWARE SDN BHD", "C W KHOO HARDWARE SDN BHD",
                         sure("C W KHOO HARDWARE SDN BHD"),
                         kLetterTaken) == "C W KHOO HARDWARE SDN BHD");
  CHECK_FALSE(
      substituted_name("S&Y STATIONERY", "S&Y STAT IONERY", sure("S&Y STAT IONERY"), kLetterTaken));
  // Starting before it is not: a word read in front of the name is no part of it.
  CHECK_FALSE(substituted_name("www.harveynorman.com.my", "Visit www.harveynorman.com.my",
                               sure("Visit www.harveynorman.com.my"), kLetterTaken));
  // Running on past the name (a registration number) is allowed; the name keeps its own end.
  CHECK(substituted_name("AEON CO. (H) BHD", "AEON CO. (M) BHD (126926-H)",
                         sure("AEON CO. (M) BHD (126926-H)"), kLetterTaken) == "AEON CO. (M) BHD");
  // A letter Tesseract missed is put in where the two align ("'SH" for "TSH"); '&' is a name's
  // character; a full-width bracket is one character of the second reading, with one probability.
  CHECK(substituted_name("'SH POWER HARDWARE TRADING", "TSH POWER HARDWARE TRADING",
                         sure("TSH POWER HARDWARE TRADING"),
                         kLetterTaken) == "'TSH POWER HARDWARE TRADING");
  CHECK(substituted_name("SRY STATIONERY", "S&Y STAT IONERY", sure("S&Y STAT IONERY"),
                         kLetterTaken) == "S&Y STATIONERY");
  // A letter Tesseract missed at a word's end goes after that word, not before the next (the 200's
  // 173).
  CHECK(substituted_name("RESTAURANT JIAWE JIAWE! HOUSE", "RESTAURANT JIAWEI JIAWEI HOUSE",
                         sure("RESTAURANT JIAWEI JIAWEI HOUSE"),
                         kLetterTaken) == "RESTAURANT JIAWEI JIAWEI! HOUSE");
  // More letters there (a word Tesseract missed) stay before the next word (the 200's 671).
  CHECK(substituted_name("MYNEWS RETAIL FKA", "MYNEWS RETAILSBXFKA", sure("MYNEWS RETAILSBXFKA"),
                         kLetterTaken) == "MYNEWS RETAIL SBXFKA");
  const std::string full_width = "MR D.I.Y.\uFF08M)SDNBHD";  // 18 characters, 20 bytes
  CHECK(substituted_name("MR O.I.Y. (M) SDN BHD", full_width, std::vector<float>(18, 0.99f),
                         kLetterTaken) == "MR D.I.Y. (M) SDN BHD");
  CHECK_FALSE(
      substituted_name("MR O.I.Y. (M) SDN BHD", full_width, sure(full_width), kLetterTaken));
  // A letter the second reading dropped is never taken out ("LIAN" read "LAN"); nothing to change;
  // a digit for a letter ("BILD" is not "81LD"); more changes than kNameEditsPer allows; an unsure
  // letter: nothing.
  CHECK_FALSE(substituted_name("LIAN HING STATIONERY", "LANHINGSTATIONERY",
                               sure("LANHINGSTATIONERY"), kLetterTaken));
  CHECK_FALSE(substituted_name("AEON CO", "AEON CO", sure("AEON CO"), kLetterTaken));
  // "BILD" read "BHD": the sure H is put in for the L, the I the second did not read stays.
  CHECK(substituted_name("GARDENIA BAKERIES (KL) SDN BILD", "GARDENIABAKERIES(KL)SDNBHD(139386X)",
                         sure("GARDENIABAKERIES(KL)SDNBHD(139386X)"),
                         kLetterTaken) == "GARDENIA BAKERIES (KL) SDN BIHD");
  CHECK_FALSE(substituted_name("SDN BILD", "SDN 81LD", sure("SDN 81LD"), kLetterTaken));
  CHECK(substituted_name("ABCDEFGH", "ABCDXFGY", sure("ABCDXFGY"), kLetterTaken) == "ABCDXFGY");
  CHECK_FALSE(substituted_name("ABCDEFGH", "ABCDXFYY", sure("ABCDXFYY"), kLetterTaken));
  std::vector<float> unsure = sure("AEDN CO. (M) BHD");
  unsure[2] = 0.5f;
  CHECK_FALSE(substituted_name("AEON CO. (M) BHD", "AEDN CO. (M) BHD", unsure, kLetterTaken));
  // Probabilities that do not match the text (not one per character) are not trusted.
  CHECK_FALSE(substituted_name("SANYO", "SANYU", {0.99f}, kLetterTaken));
}

TEST_CASE("cross-read: a row's description is found in the reading of its words") {
  // The description anywhere in the reading (a quantity read before it, a price after it), its
  // letters and digits as they are: the lists' sums never vouch for a description's letters.
  CHECK(readings_agree("list", "Coffee beans 1kg", "2 Coffee beans 1kg $12.00", lexicon()));
  CHECK(readings_agree("list", "Phone bill.", "Phone bill", lexicon()));
  CHECK_FALSE(readings_agree("list", "Coffee beans lkg", "Coffee beans 1kg", lexicon()));
  CHECK_FALSE(readings_agree("list", "Electricity bill", "Electricity bil", lexicon()));
  CHECK_FALSE(readings_agree("list", "", "Fuel", lexicon()));
  // Settled as an address's letters (Engine::cross_read_rows): a sure digit in a short word or one
  // with a digit ("Ad" read "A4", "lkg" read "1kg"), a letter for a letter; never a letter out.
  const auto sure = [](const std::string& text) { return std::vector<float>(text.size(), 0.99f); };
  CHECK(substituted_name("Ad paper ream", "A4 paper ream", sure("A4 paper ream"), kLetterTaken,
                         true) == "A4 paper ream");
  CHECK(substituted_name("Coffee beans lkg", "Coffee beans 1kg", sure("Coffee beans 1kg"),
                         kLetterTaken, true) == "Coffee beans 1kg");
  CHECK(substituted_name("Sefvice call-out", "Service cal-out", sure("Service cal-out"),
                         kLetterTaken, true) == "Service call-out");
  CHECK_FALSE(substituted_name("Electricity bill", "Electricity bil", sure("Electricity bil"),
                               kLetterTaken, true));
}

TEST_CASE("cross-read: a date read with its time glued on is read as the date") {
  CHECK(unglued_time("2018-03-1813:18:48") == "2018-03-18 13:18:48");
  CHECK(unglued_time("10/03/20185:41") == "10/03/2018 5:41");
  CHECK(unglued_time("15-03-1315:41") == "15-03-13 15:41");
  CHECK(unglued_time("11/02/18 19:21") == "11/02/18 19:21");
  CHECK(unglued_time("13:18:48") == "13:18:48");
  CHECK(settle("date", "16/03/2018", doubtful(70), {}, reading("2018-03-1813:18:48", 0.99f),
               lexicon(), DateOrder::Dmy) == "18/03/2018");
  CHECK(readings_agree("date", "10/03/2018", "10/03/20185:41", lexicon()));
}

TEST_CASE("cross-read: the calibration sees the second recognizer's agreement") {
  Evidence e;
  auto x = feature_values(e);
  CHECK(x.at("reader_agreed") == 0.0);
  CHECK(x.at("reader_disagreed") == 0.0);
  e.reader_read = true;
  x = feature_values(e);
  CHECK(x.at("reader_disagreed") == 1.0);
  e.reader_agreed = true;
  x = feature_values(e);
  CHECK(x.at("reader_agreed") == 1.0);
  CHECK(x.at("reader_disagreed") == 0.0);
  e.reader_agreed = false, e.reader_taken = true;
  x = feature_values(e);
  CHECK(x.at("reader_taken") == 1.0);
  CHECK(x.at("reader_disagreed") == 0.0);
}

TEST_CASE("cross-read: how far a value still is from the second reading, per letter") {
  // Letters and digits alone, case aside; the reading may run on past the value.
  CHECK(reading_gap("SANYU STATIONERY SHOP", "SANYUSTATIONERYSHOP") == 0.0);
  CHECK(reading_gap("BOON SENG PAPER SDN BHD", "Boon Seng Paper Sdn Bhd (1248717-W)") == 0.0);
  // One letter of 19 read otherwise; two of 8, one of them missing.
  CHECK(reading_gap("SANYO STATIONERY SHOP", "SANYU STATIONERY SHOP") == doctest::Approx(1.0 / 19));
  CHECK(reading_gap("MENTAL INITIAL", "MENTAI INITAL") == doctest::Approx(2.0 / 13));
  // A reading that starts elsewhere is far from the value; a value with no letters is not.
  CHECK(reading_gap("GARDENIA", "Bandar Baru GARDENIA") >= 0.5);
  CHECK(reading_gap("...", "anything") == 0.0);
  CHECK(reading_gap("ABC", "") == 1.0);
}

TEST_CASE("cross-read: the calibration sees how sure the second reading was, and how far apart") {
  Evidence e;
  e.reader_mean = 0.9, e.reader_gap = 0.1;
  auto x = feature_values(e);
  // Nothing where the box was not read again.
  CHECK(x.at("reader_score") == 0.0);
  CHECK(x.at("reader_gap") == 0.0);
  e.reader_read = true;
  x = feature_values(e);
  CHECK(x.at("reader_score") == doctest::Approx(0.9));
  CHECK(x.at("reader_gap") == doctest::Approx(0.5));  // five times the edits per letter
  e.reader_gap = 0.4;
  CHECK(feature_values(e).at("reader_gap") == 1.0);  // capped
}
