// The OCR engine: each value check on strings, the field rules on pages laid out from strings (no
// OCR), then Tesseract end to end: the samples scored by eval, and pages with nothing to read.
#include <yaml-cpp/yaml.h>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "docsift/abn.h"
#include "docsift/error.h"
#include "docsift/io/csv.h"
#include "docsift/io/pages.h"
#include "docsift/ocr/calibration.h"
#include "docsift/ocr/engine.h"
#include "docsift/ocr/finder.h"
#include "docsift/ocr/line_recognizer.h"
#include "docsift/ocr/page.h"
#include "docsift/ocr/page_checks.h"
#include "docsift/ocr/page_image.h"
#include "docsift/ocr/rules.h"
#include "docsift/ocr/values.h"
#include "support/cli_runner.h"
#include "support/fixture_files.h"
#include "support/log_lines.h"
#include "support/skip.h"
#include "support/summary_json.h"
#include "support/temp_dir.h"

// After the LibTorch headers: c10's logging macros must not shadow doctest's CHECK.
#include <doctest/doctest.h>

namespace fs = std::filesystem;
using namespace docsift::ocr;
using docsift::testing::file_bytes;
using docsift::testing::journal_lines;
using docsift::testing::run_docsift;
using docsift::testing::shell_quote;
using docsift::testing::TempDir;
using docsift::testing::write_text;

namespace {

const fs::path kSource = DOCSIFT_SOURCE_DIR;

std::string value_or_none(const std::optional<std::string>& v) { return v ? *v : "<none>"; }

// The message of the ConfigError `load` throws for `yaml` written to `path`, or "no error".
template <typename Load>
std::string load_error(const fs::path& path, const std::string& yaml, Load load) {
  write_text(path, yaml);
  try {
    load(path.string());
  } catch (const docsift::ConfigError& error) {
    return error.what();
  }
  return "no error";
}

// Whether the rules proposed `value` to the trained finder as TOTAL, with `feature` set.
bool proposed(const Extraction& e, const std::string& value, const std::string& feature) {
  const auto it = e.candidates.find("TOTAL");
  if (it == e.candidates.end()) return false;
  return std::any_of(it->second.begin(), it->second.end(), [&](const Ranked& c) {
    return c.value == value &&
           std::any_of(c.features.begin(), c.features.end(),
                       [&](const auto& f) { return f.first == feature && f.second == 1.0; });
  });
}

// Month names and currency marks as the shipped rules give them.
const Lexicon& lexicon() {
  static const Rules rules = load_rules("builtin:ocr-rules");
  return rules.lexicon;
}

// A page as if OCR had read `lines` from a clean render: 10 px per character, 30 px per line, and
// an empty string as a blank line (so a new block).
Page page_of(const std::vector<std::string>& lines) {
  std::vector<Word> words;
  int y = 0;
  for (const auto& line : lines) {
    int x = 0;
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && line[i] == ' ') ++i, x += 10;
      const std::size_t start = i;
      while (i < line.size() && line[i] != ' ') ++i;
      if (i > start) {
        const int w = static_cast<int>(i - start) * 10;
        words.push_back({line.substr(start, i - start), {x, y, x + w, y + 20}, 95.0f});
        x += w;
      }
    }
    y += 30;
  }
  return layout_page(std::move(words), 850, 1100);
}

const std::vector<std::string> kFieldNames{"DOCUMENT_TYPE",
                                           "SUPPLIER",
                                           "ABN",
                                           "PAYER_NAME",
                                           "PAYER_ADDRESS",
                                           "PAYER_PHONE",
                                           "PAYER_EMAIL",
                                           "INVOICE_DATE",
                                           "DUE_DATE",
                                           "GST",
                                           "TOTAL",
                                           "SUBTOTAL",
                                           "QUANTITIES",
                                           "PRICES",
                                           "BUSINESS_ADDRESS",
                                           "BUSINESS_PHONE",
                                           "SUPPLIER_WEBSITE",
                                           "BANK_NAME",
                                           "BSB_NUMBER",
                                           "BANK_ACCOUNT_NUMBER",
                                           "ACCOUNT_HOLDER",
                                           "STATEMENT_PERIOD",
                                           "OPENING_BALANCE",
                                           "CLOSING_BALANCE",
                                           "DESCRIPTIONS"};

// A 24-bit BMP of `rgb` (8-bit RGB, CV_8UC3): an image format docsift reads, written without a
// library.
void write_bmp(const fs::path& path, const cv::Mat& rgb) {
  const int h = rgb.rows, w = rgb.cols;
  const int row = (w * 3 + 3) / 4 * 4;
  std::string bytes(54 + static_cast<std::size_t>(row) * h, '\0');
  const auto put32 = [&](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<char>(v >> (8 * i));
  };
  bytes[0] = 'B';
  bytes[1] = 'M';
  put32(2, static_cast<std::uint32_t>(bytes.size()));
  put32(10, 54);
  put32(14, 40);
  put32(18, static_cast<std::uint32_t>(w));
  put32(22, static_cast<std::uint32_t>(h));
  bytes[26] = 1;
  bytes[28] = 24;
  const cv::Mat c = rgb.isContinuous() ? rgb : rgb.clone();
  const auto* p = c.ptr<std::uint8_t>();
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const std::size_t at =
          54 + static_cast<std::size_t>(h - 1 - y) * row + static_cast<std::size_t>(x) * 3;
      for (int k = 0; k < 3; ++k) bytes[at + k] = static_cast<char>(p[(y * w + x) * 3 + (2 - k)]);
    }
  }
  std::ofstream(path, std::ios::binary) << bytes;
}

// The first sample page as docsift decodes it (RGB, CV_8UC3).
cv::Mat sample_page() {
  return docsift::io::read_page_pixels(kSource / "samples/synthetic_invoice_001.png", 0,
                                       docsift::io::PageOptions{});
}

// A born-digital PDF: one A4 page whose text is a real text layer (Helvetica, WinAnsi, one line of
// `lines` every 16 points from the top), written by hand with a correct cross-reference table.
void write_text_pdf(const fs::path& path, const std::vector<std::string>& lines) {
  std::string content = "BT /F1 11 Tf\n";
  double y = 800;
  for (const auto& line : lines) {
    std::string escaped;
    for (const char c : line) {
      if (c == '(' || c == ')' || c == '\\') escaped += '\\';
      escaped += c;
    }
    content += "1 0 0 1 50 " + std::to_string(static_cast<int>(y)) + " Tm (" + escaped + ") Tj\n";
    y -= 16;
  }
  content += "ET\n";
  const std::vector<std::string> objects = {
      "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> "
      "/Contents 5 0 R >>",
      "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
      "<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content + "endstream"};
  std::string pdf = "%PDF-1.4\n";
  std::vector<std::size_t> offsets;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    offsets.push_back(pdf.size());
    pdf += std::to_string(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
  }
  const std::size_t xref = pdf.size();
  pdf += "xref\n0 " + std::to_string(objects.size() + 1) + "\n0000000000 65535 f \n";
  for (const auto at : offsets) {
    char entry[24];
    std::snprintf(entry, sizeof entry, "%010zu 00000 n \n", at);
    pdf += entry;
  }
  pdf += "trailer\n<< /Size " + std::to_string(objects.size() + 1) +
         " /Root 1 0 R >>\nstartxref\n" + std::to_string(xref) + "\n%%EOF\n";
  std::ofstream(path, std::ios::binary) << pdf;
}
}  // namespace

TEST_CASE("OCR values: ABN checksum, dates, amounts, BSB, accounts, phones, addresses") {
  using docsift::abn_checksum_ok;
  CHECK(abn_checksum_ok("51824753556"));  // the ATO's published example
  CHECK_FALSE(abn_checksum_ok("51824753557"));
  CHECK(value_or_none(parse_abn("ABN 51 824 753 556")) == "51 824 753 556");
  CHECK(value_or_none(parse_abn("A.B.N. 51824753556")) == "51 824 753 556");
  CHECK(value_or_none(parse_abn("ABN 51:824 753 556")) ==
        "51 824 753 556");                                            // OCR read a space as ':'
  CHECK(value_or_none(parse_abn("ABN 51 824 753 557")) == "<none>");  // one digit misread
  CHECK(value_or_none(parse_abn("Phone 0412 345 678")) == "<none>");

  CHECK(value_or_none(parse_date("Date: 03/04/2025", lexicon())) == "03/04/2025");
  CHECK(value_or_none(parse_date("3/4/25", lexicon())) == "03/04/2025");
  CHECK(value_or_none(parse_date("03-04-2025", lexicon())) == "03/04/2025");
  CHECK(value_or_none(parse_date("03.04.2025", lexicon())) == "03/04/2025");
  CHECK(value_or_none(parse_date("2025-04-03", lexicon())) == "03/04/2025");
  CHECK(value_or_none(parse_date("Issued 3 April 2025", lexicon())) == "03/04/2025");
  CHECK(value_or_none(parse_date("3rd Apr 2025", lexicon())) == "03/04/2025");
  CHECK(value_or_none(parse_date("April 3, 2025", lexicon())) == "03/04/2025");
  CHECK(value_or_none(parse_date("29/02/2024", lexicon())) == "29/02/2024");
  CHECK(value_or_none(parse_date("29/02/2025", lexicon())) == "<none>");
  CHECK(value_or_none(parse_date("31/04/2025", lexicon())) == "<none>");
  CHECK(value_or_none(parse_date("Qty 3", lexicon())) == "<none>");
  // A till's date without separators, before its time: day first, or year first.
  CHECK(value_or_none(parse_date("00440010036 25032018 13:11:54", lexicon())) == "25/03/2018");
  CHECK(value_or_none(parse_date("20180428 19:12", lexicon())) == "28/04/2018");
  CHECK(value_or_none(parse_date("Ref 25032018", lexicon())) == "<none>");  // no time: an id
  CHECK(value_or_none(parse_date("12345678 13:11", lexicon())) == "<none>");
  CHECK(value_or_none(parse_period("01/07/2025 to 28/07/2025", lexicon())) ==
        "01/07/2025 to 28/07/2025");
  CHECK(value_or_none(parse_period("1 July 2025 - 28 July 2025", lexicon())) ==
        "01/07/2025 to 28/07/2025");
  CHECK(value_or_none(parse_period("01/07/2025", lexicon())) == "<none>");

  CHECK(value_or_none(parse_amount("TOTAL: $2,480.62", lexicon())) == "$2,480.62");
  CHECK(value_or_none(parse_amount("1234.56", lexicon())) ==
        "1,234.56");  // no mark printed: none written
  CHECK(value_or_none(parse_amount("AUD 1,234.56", lexicon())) == "$1,234.56");
  CHECK(value_or_none(parse_amount("Rent payment -$509.21", lexicon())) == "$509.21");
  CHECK(value_or_none(parse_amount("GST (10%): $225.51", lexicon())) == "$225.51");
  CHECK(value_or_none(parse_amount("$ 1 234.56", lexicon())) == "$1,234.56");
  CHECK(value_or_none(parse_amount("4 $69.73", lexicon())) == "$69.73");
  CHECK(value_or_none(parse_amount("Qty 4", lexicon())) == "<none>");
  CHECK(value_or_none(parse_amount("1,234", lexicon())) == "<none>");
  CHECK(value_or_none(parse_amount("03.04.2025", lexicon())) == "<none>");
  CHECK(amount_cents("$2,480.62") == 248062);

  CHECK(value_or_none(parse_bsb("BSB: 063-140")) == "063 140");
  CHECK(value_or_none(parse_bsb("063140")) == "063 140");
  CHECK(value_or_none(parse_bsb("06314")) == "<none>");
  CHECK(value_or_none(parse_bsb("BSB Number: . 951.208")) == "951 208");  // a speck read as a stop
  CHECK(value_or_none(parse_account("Account: 3957 6099")) == "39576099");
  CHECK(value_or_none(parse_account("Account statement")) == "<none>");
  CHECK(value_or_none(parse_phone("Phone (02) 1889 4771")) == "(02) 1889 4771");
  CHECK(value_or_none(parse_phone("Mobile 0412 345 678")) == "0412 345 678");
  // An area code's number spaced as written, whatever spaces OCR lost; others as printed.
  CHECK(value_or_none(parse_phone("Tel (02) 95394956")) == "(02) 9539 4956");
  CHECK(value_or_none(parse_phone("(02)9539 4956")) == "(02) 9539 4956");
  CHECK(value_or_none(parse_phone("Phone: (08) 2323.9217 i")) == "(08) 2323 9217");
  CHECK(value_or_none(parse_phone("Ph. (03) 6718-1934")) == "(03) 6718 1934");
  CHECK(value_or_none(parse_phone("Mobile 0412345678")) == "0412345678");
  CHECK(value_or_none(parse_phone("+61 2 9539 4956")) == "+61 2 9539 4956");
  CHECK(value_or_none(parse_phone("ABN 51 824 753 556")) == "<none>");
  CHECK(value_or_none(parse_email("jordan.smith@Example.com.au")) == "jordan.smith@example.com.au");
  // A space OCR put after a stop, in an address alone on its line (or after its label) ...
  CHECK(value_or_none(parse_email("Liam. oconnor@example.com. au")) ==
        "liam.oconnor@example.com.au");
  CHECK(value_or_none(parse_email("Email: tom. nguyen@example.com.au")) ==
        "tom.nguyen@example.com.au");
  // ... or the stop of its name read as a comma or a space; a label or a capitalised word before
  // the space is no part of the name.
  CHECK(value_or_none(parse_email("mei,chen@example.com.au")) == "mei.chen@example.com.au");
  CHECK(value_or_none(parse_email("aisha rahman@example.com.au")) == "aisha.rahman@example.com.au");
  CHECK(value_or_none(parse_email("Email aisha@example.com.au")) == "aisha@example.com.au");
  CHECK(value_or_none(parse_email("email aisha@example.com.au")) == "aisha@example.com.au");
  CHECK(value_or_none(parse_email("Aisha rahman@example.com.au")) == "rahman@example.com.au");
  // A speck before it or after it; a stop of its name read as a slash, of its domain as a comma or
  // a space (as read on generated pages).
  CHECK(value_or_none(parse_email("\u2018aisha rahman@example.com.au")) ==
        "aisha.rahman@example.com.au");
  CHECK(value_or_none(parse_email("aisha rahman@example.com au")) == "aisha.rahman@example.com.au");
  CHECK(value_or_none(parse_email("E-Mail: liam/oconnor@example.com,au -")) ==
        "liam.oconnor@example.com.au");
  CHECK(value_or_none(parse_email("jordan. smith@example com au")) ==
        "jordan.smith@example.com.au");
  CHECK(value_or_none(parse_email("Contact: help@example.com or")) == "help@example.com");
  // ... and not in running text, where the stop ends a sentence.
  CHECK(value_or_none(parse_email("Write to us. help@example.com")) == "help@example.com");
  CHECK(value_or_none(parse_email("Write to aisha rahman@example.com")) == "rahman@example.com");
  CHECK(value_or_none(parse_email("help@example.com. Thanks")) == "help@example.com");
  CHECK(value_or_none(parse_email("help@example.com. thanks")) == "help@example.com");
  CHECK(value_or_none(parse_website("Visit www.harbour.com.au today")) == "www.harbour.com.au");
  // A website's last letters OCR read as a word of their own, where it ends its line ...
  CHECK(value_or_none(parse_website("Website: www.kookaburra.com. au")) == "www.kookaburra.com.au");
  CHECK(value_or_none(parse_website("www.Kookaburra.com. AU")) == "www.kookaburra.com.au");
  CHECK(value_or_none(parse_website("www. kookaburra.com.au")) == "www.kookaburra.com.au");
  CHECK(value_or_none(parse_website("Web: www. redgum. com. au")) == "www.redgum.com.au");
  CHECK(value_or_none(parse_website("ww. blue.com. au")) == "www.blue.com.au");  // a w lost
  // A comma for its last stop, and specks about it (as read on generated pages).
  CHECK(value_or_none(parse_website("www.kookaburra.com,au")) == "www.kookaburra.com.au");
  CHECK(value_or_none(parse_website("Web: \u00a9 . www.harbour.com,au :")) == "www.harbour.com.au");
  // A long line of specks fails at once (a split of them one way only).
  CHECK(value_or_none(parse_website("Web: " + std::string(60, '.') + " ww")) == "<none>");
  CHECK(value_or_none(parse_email(std::string(60, '.') + "@ " + std::string(60, '.'))) == "<none>");
  // ... and not where the stop ends a sentence, or the line goes on.
  CHECK(value_or_none(parse_website("Shop at www.harbour.com. Thanks")) == "www.harbour.com");
  CHECK(value_or_none(parse_website("www.harbour.com. au ABN 51 824 753 556")) ==
        "www.harbour.com");
  CHECK(value_or_none(parse_website("Harbour Supplies")) == "<none>");
  // A home region OCR misread before the postcode, put back where only one region reads so.
  using docsift::ocr::home_region_repaired;
  const std::vector<std::string> regions{"nsw", "vic", "qld", "sa", "wa", "tas", "nt", "act"};
  CHECK(value_or_none(home_region_repaired("301 Queen Street, Brisbane OLD 4000", regions)) ==
        "301 Queen Street, Brisbane QLD 4000");
  CHECK(value_or_none(home_region_repaired("12 George Street, Sydney N5W 2000.", regions)) ==
        "12 George Street, Sydney NSW 2000.");
  CHECK(value_or_none(home_region_repaired("Level 2, Melbourne V1C 3000", regions)) ==
        "Level 2, Melbourne VIC 3000");
  CHECK(value_or_none(home_region_repaired("301 Queen Street, Brisbane QLD 4000", regions)) ==
        "<none>");  // read right
  CHECK(value_or_none(home_region_repaired("44 Rundle Mall, Adelaide SA5000", regions)) ==
        "44 Rundle Mall, Adelaide SA 5000");  // glued to its postcode
  CHECK(value_or_none(home_region_repaired("Brisbane OLD4000", regions)) == "Brisbane QLD 4000");
  CHECK(value_or_none(home_region_repaired("Unit 7, Perth ZZ 6000", regions)) == "<none>");
  CHECK(value_or_none(home_region_repaired("Brisbane OLD 4000", {})) == "<none>");  // no home
  CHECK(value_or_none(home_region_repaired("OLD 4000 Brisbane", regions)) == "<none>");
  CHECK(looks_like_address("88 Collins Street, Melbourne VIC 3000", lexicon()));
  CHECK(looks_like_address("Level 2, 5 Adelaide Terrace", lexicon()));
  CHECK(looks_like_address("Perth WA 6000", lexicon()));
  CHECK_FALSE(looks_like_address("Perth WA 60000", lexicon()));
  CHECK_FALSE(looks_like_address("Jordan Smith", lexicon()));
  CHECK_FALSE(looks_like_address("Flyers x500 3 $116.25", lexicon()));
  // The states are the rules' home.regions: without a home, a state and postcode alone is none.
  CHECK_FALSE(looks_like_address("Perth WA 6000", docsift::ocr::Lexicon{}));
  CHECK(clean_text("  :  Jordan   Smith - ") == "Jordan Smith");
}

TEST_CASE("OCR page: a speck whose centre sorts it first does not part the line it starts") {
  using docsift::ocr::Word;
  // A generated statement (make_varied.py, key_value): a 2 px ":" of noise over "O'Connor", one
  // pixel higher than "Customer: Liam". Its core let "Customer:" overlap it by 1 px: two lines,
  // and the account holder read as "Liam".
  std::vector<Word> words{
      {"Customer:", {67, 161, 191, 179}, 93.0f}, {"Liam", {225, 160, 281, 180}, 95.0f},
      {"0'Connor", {297, 160, 411, 179}, 90.0f}, {":", {489, 160, 491, 162}, 40.0f},
      {"BSB:", {566, 161, 619, 179}, 95.0f},     {"5", {65, 197, 78, 215}, 95.0f},
      {"Adelaide", {93, 196, 209, 215}, 95.0f}};
  const auto page = docsift::ocr::layout_page(words, 1186, 1304);
  REQUIRE(page.lines.size() == 2);
  std::string first;
  for (const Word& w : page.lines[0].words) first += w.text + " ";
  CHECK(first == "Customer: Liam 0'Connor : BSB: ");
  // A speck between two lines starts a line of its own, as before; a rule of noise far taller
  // than the text that joins it never becomes its core, which would stretch it over the next row
  // ("5 Adelaide" would join it).
  words.push_back({".", {300, 186, 302, 188}, 30.0f});
  words.push_back({"|", {700, 150, 704, 230}, 20.0f});
  const auto more = docsift::ocr::layout_page(words, 1186, 1304);
  std::vector<std::size_t> sizes;
  for (const auto& line : more.lines) sizes.push_back(line.words.size());
  CHECK(sizes == std::vector<std::size_t>{2, 5, 2});  // ". |", the customer's line, "5 Adelaide"
}

TEST_CASE(
    "OCR rules on a laid-out invoice: labels right and below, the longest label wins, table rows, "
    "blocks") {
  const Rules rules = load_rules("builtin:ocr-rules");
  const Page page = page_of({"TAX INVOICE",
                             "Harbour Office Supplies",
                             "ABN 51 824 753 556",
                             "88 Collins Street, Melbourne VIC 3000",
                             "Phone (02) 1889 4771",
                             "www.harbour.com.au",
                             "",
                             "Bill to:",
                             "Jordan Smith",
                             "5 Adelaide Terrace, Perth WA 6000",
                             "(04) 4357 3024",
                             "jordan.smith@example.com.au",
                             "",
                             "Date: 03/04/2025",
                             "Due date: 19/11/2025",
                             "",
                             "Description        Qty     Price",
                             "Catering platter     4    $69.73",
                             "Flyers x500          3   $116.25",
                             "",
                             "Subtotal: $627.67",
                             "GST (10%): $62.77",
                             "TOTAL: $690.44"});
  const auto e = extract_fields(page, rules, kFieldNames);
  CHECK(e.fields.at("DOCUMENT_TYPE") == "TAX INVOICE");
  CHECK(e.fields.at("SUPPLIER") == "Harbour Office Supplies");
  CHECK(e.fields.at("ABN") == "51 824 753 556");
  CHECK(e.fields.at("BUSINESS_ADDRESS") == "88 Collins Street, Melbourne VIC 3000");
  // Each value's box is its own words: the address's is its line (the fourth, 30 px a line), not
  // the seller's line it is found under.
  CHECK(e.evidence.at("SUPPLIER").box.top == 30);
  CHECK(e.evidence.at("BUSINESS_ADDRESS").box.top == 90);
  CHECK(e.evidence.at("BUSINESS_ADDRESS").box.bottom == 110);
  CHECK(e.fields.at("BUSINESS_PHONE") == "(02) 1889 4771");
  CHECK(e.fields.at("SUPPLIER_WEBSITE") == "www.harbour.com.au");
  CHECK(e.fields.at("PAYER_NAME") == "Jordan Smith");
  CHECK(e.fields.at("PAYER_ADDRESS") == "5 Adelaide Terrace, Perth WA 6000");
  CHECK(e.fields.at("PAYER_PHONE") == "(04) 4357 3024");
  CHECK(e.fields.at("PAYER_EMAIL") == "jordan.smith@example.com.au");
  CHECK(e.fields.at("INVOICE_DATE") == "03/04/2025");
  CHECK(e.fields.at("DUE_DATE") == "19/11/2025");
  CHECK(e.fields.at("DESCRIPTIONS") == "Catering platter | Flyers x500");
  CHECK(e.fields.at("QUANTITIES") == "4 | 3");
  CHECK(e.fields.at("PRICES") == "$69.73 | $116.25");
  CHECK(e.fields.at("SUBTOTAL") == "$627.67");
  CHECK(e.fields.at("GST") == "$62.77");
  CHECK(e.fields.at("TOTAL") == "$690.44");
  CHECK(e.checks["sum"] == true);
  for (const char* none : {"BANK_NAME", "BSB_NUMBER", "BANK_ACCOUNT_NUMBER", "ACCOUNT_HOLDER",
                           "STATEMENT_PERIOD", "OPENING_BALANCE", "CLOSING_BALANCE"}) {
    CAPTURE(std::string(none));
    CHECK(e.fields.at(none) == "N/A");
  }
}

TEST_CASE(
    "OCR rules: an address a label of the user's rules read first keeps its own words as its "
    "evidence, not the lines under the seller") {
  Rules rules = load_rules("builtin:ocr-rules");
  rules.fields.push_back({"BUSINESS_ADDRESS", "text", {"head office"}, {0}});
  const auto e = extract_fields(
      page_of({"TAX INVOICE", "Harbour Office Supplies", "88 Collins Street, Melbourne VIC 3000",
               "", "Head office: 12 George Street, Sydney NSW 2000", "", "TOTAL: $690.44"}),
      rules, kFieldNames);
  CHECK(e.fields.at("SUPPLIER") == "Harbour Office Supplies");
  // The label's value is found first (labelled values run before the seller's address); the
  // address step's lines under the seller are not taken, nor their words and parts.
  CHECK(e.fields.at("BUSINESS_ADDRESS") == "12 George Street, Sydney NSW 2000");
  const Evidence& address = e.evidence.at("BUSINESS_ADDRESS");
  CHECK(address.labelled);
  CHECK(address.box.top == 120);  // the fifth line's, 30 px a line
  CHECK(address.parts.empty());
  CHECK(address.lines_skipped == 0);
}

TEST_CASE(
    "OCR rules: a statement's customer is its account holder, and an address stops at an account's "
    "or a phone's label read into its line") {
  const Rules rules = load_rules("builtin:ocr-rules");
  // Two columns whose gap OCR read narrow: the account's label and number on the address's line.
  const auto statement =
      extract_fields(page_of({"Westpac Statement of account", "Customer Jordan Smith",
                              "7 Elizabeth Street, Hobart TAS 7000 Account number 69811066",
                              "BSB 115 340", "For the period 01/12/2025 to 28/12/2025",
                              "Opening balance $1,136.36", "Closing balance $2,538.91"}),
                     rules, kFieldNames);
  CHECK(statement.fields.at("DOCUMENT_TYPE") == "BANK STATEMENT");
  CHECK(statement.fields.at("ACCOUNT_HOLDER") == "Jordan Smith");
  CHECK(statement.evidence.at("ACCOUNT_HOLDER").labelled);
  CHECK(statement.fields.at("PAYER_ADDRESS") == "7 Elizabeth Street, Hobart TAS 7000");
  CHECK(statement.fields.at("BANK_ACCOUNT_NUMBER") == "69811066");
  // A label before the bank's name on its line is no part of it.
  const auto labelled =
      extract_fields(page_of({"Kontoauszug", "Kreditinstitut: NAB", "Opening balance $1,136.36",
                              "Closing balance $2,538.91"}),
                     rules, kFieldNames);
  CHECK(labelled.fields.at("DOCUMENT_TYPE") == "BANK STATEMENT");
  CHECK(labelled.fields.at("BANK_NAME") == "NAB");
  // On an invoice the customer is the payer, not an account's holder; a phone's label ends the
  // payer's address as an account's does.
  const auto invoice = extract_fields(
      page_of({"Harbour Office Supplies", "TAX INVOICE", "Customer Jordan Smith",
               "7 Elizabeth Street, Hobart TAS 7000 Phone (03) 9123 4567", "Total $11.00"}),
      rules, kFieldNames);
  CHECK(invoice.fields.at("PAYER_NAME") == "Jordan Smith");
  CHECK(invoice.fields.at("ACCOUNT_HOLDER") == "N/A");
  CHECK(invoice.fields.at("PAYER_ADDRESS") == "7 Elizabeth Street, Hobart TAS 7000");
}

TEST_CASE(
    "OCR rules: both parties' labelled lines in one block: the payer's are its name's and those "
    "under it, its address without its label") {
  const Rules rules = load_rules("builtin:ocr-rules");
  // The key-value layout of the generated pages (bench/confidence/make_varied.py), which Tesseract
  // reads as one block: the seller's "Address:" and "Tel:" above "Sold to:" are the seller's.
  const Page page = page_of({"INVOICE", "Supplier: Ironbark Hardware", "A.B.N.: 92 419 992 410",
                             "Address: 12 George Street, Sydney NSW 2000", "Tel: (03) 7319 2574",
                             "Sold to: Priya Patel", "Address: 5 Adelaide Terrace, Perth WA 6000",
                             "Tel: (07) 3376 1226", "Email: priya.patel@example.com.au",
                             "Issued: 19/05/2025", "Total: $3,935.55"});
  const auto e = extract_fields(page, rules, kFieldNames);
  CHECK(e.fields.at("PAYER_NAME") == "Priya Patel");
  CHECK(e.fields.at("PAYER_ADDRESS") == "5 Adelaide Terrace, Perth WA 6000");
  CHECK(e.fields.at("PAYER_PHONE") == "(07) 3376 1226");
  CHECK(e.fields.at("BUSINESS_ADDRESS") == "12 George Street, Sydney NSW 2000");
  CHECK(e.fields.at("BUSINESS_PHONE") == "(03) 7319 2574");
}

TEST_CASE("OCR rules: a German receipt's heading, Kassenbeleg, types the page and is no seller") {
  const Rules rules = load_rules("builtin:ocr-rules");
  // The heading right of the seller's name, a column apart.
  const auto e =
      extract_fields(page_of({"Redgum Electrical          Kassenbeleg", "ABN 51 824 753 556",
                              "Datum: 19/10/2025", "Gesamt $11.00"}),
                     rules, kFieldNames);
  CHECK(e.fields.at("DOCUMENT_TYPE") == "RECEIPT");
  CHECK(e.fields.at("SUPPLIER") == "Redgum Electrical");
}

TEST_CASE(
    "OCR rules: other wordings, two labels on one line, a statement, noise that fails the checks") {
  const Rules rules = load_rules("builtin:ocr-rules");
  auto e = extract_fields(
      page_of({"Blue Wren Printing Pty Ltd", "A.B.N. 51 824 753 556", "TAX INVOICE", "",
               "Billed to: Mei Chen", "", "Invoice Date: 3 April 2025    Payment due: 17 Apr 2025",
               "", "Item                 Quantity   Unit price",
               "Stapler                     2       $12.50", "", "Total (ex GST) $25.00",
               "GST $2.50", "Amount Due $27.60"}),
      rules, kFieldNames);
  CHECK(e.fields.at("DOCUMENT_TYPE") == "TAX INVOICE");
  CHECK(e.fields.at("SUPPLIER") == "Blue Wren Printing Pty Ltd");
  CHECK(e.fields.at("ABN") == "51 824 753 556");
  CHECK(e.fields.at("PAYER_NAME") == "Mei Chen");
  CHECK(e.fields.at("INVOICE_DATE") == "03/04/2025");
  CHECK(e.fields.at("DUE_DATE") == "17/04/2025");
  CHECK(e.fields.at("SUBTOTAL") == "$25.00");  // "Total (ex GST)" is not the total
  CHECK(e.fields.at("TOTAL") == "$27.60");
  CHECK(e.fields.at("DESCRIPTIONS") == "Stapler");
  CHECK(e.checks["sum"] == false);  // 25.00 + 2.50 is not 27.60: the record says so

  e = extract_fields(
      page_of({"Westpac", "Account statement", "Account holder: Aisha Rahman",
               "301 Queen Street, Brisbane QLD 4000", "BSB: 630 887   Account: 39576099",
               "Statement period: 01/07/2025 to 28/07/2025", "", "Opening balance: $1,208.81", "",
               "Transaction              Amount", "Rent payment           -$509.21",
               "Fuel - $329.43", "", "Closing balance: $1,373.03"}),
      rules, kFieldNames);
  CHECK(e.fields.at("DOCUMENT_TYPE") == "BANK STATEMENT");
  CHECK(e.fields.at("BANK_NAME") == "Westpac");
  CHECK(e.fields.at("ACCOUNT_HOLDER") == "Aisha Rahman");
  CHECK(e.fields.at("PAYER_ADDRESS") == "301 Queen Street, Brisbane QLD 4000");
  CHECK(e.fields.at("BSB_NUMBER") == "630 887");
  CHECK(e.fields.at("BANK_ACCOUNT_NUMBER") == "39576099");
  CHECK(e.fields.at("STATEMENT_PERIOD") == "01/07/2025 to 28/07/2025");
  CHECK(e.fields.at("OPENING_BALANCE") == "$1,208.81");
  CHECK(e.fields.at("CLOSING_BALANCE") == "$1,373.03");
  CHECK(e.fields.at("DESCRIPTIONS") == "Rent payment | Fuel");
  for (const char* none :
       {"SUPPLIER", "ABN", "PAYER_NAME", "PRICES", "QUANTITIES", "TOTAL", "INVOICE_DATE"}) {
    CAPTURE(std::string(none));
    CHECK(e.fields.at(none) == "N/A");
  }
  // The rows against the balances: 1,208.81 - 509.21 - 329.43 is not 1,373.03 (rows are missing).
  CHECK(e.checks["balance"] == false);
  for (const char* tied : {"DESCRIPTIONS", "OPENING_BALANCE", "CLOSING_BALANCE"}) {
    CAPTURE(std::string(tied));
    CHECK(e.evidence.at(tied).contradicted);
    CHECK_FALSE(e.evidence.at(tied).vouched);
  }
  // ... the closing balance they do sum to vouches for them (the minus read as a word of its own
  // counts), and a running balance column, its last row the closing balance, vouches for nothing.
  const auto statement = [&](const std::vector<std::string>& rows, const std::string& closing) {
    std::vector<std::string> lines{"Westpac", "Account statement", "Opening balance: $1,208.81", "",
                                   "Transaction              Amount"};
    lines.insert(lines.end(), rows.begin(), rows.end());
    lines.insert(lines.end(), {"", "Closing balance: " + closing});
    return extract_fields(page_of(lines), rules, kFieldNames);
  };
  e = statement({"Rent payment           -$509.21", "Fuel - $329.43"}, "$370.17");
  CHECK(e.checks["balance"] == "sum");
  for (const char* tied : {"DESCRIPTIONS", "OPENING_BALANCE", "CLOSING_BALANCE"}) {
    CAPTURE(std::string(tied));
    CHECK(e.evidence.at(tied).vouched);
  }
  e = statement({"Rent payment     -$509.21  $699.60", "Fuel   -$329.43  $370.17"}, "$370.17");
  CHECK(e.checks["balance"] == "running");
  for (const char* tied : {"DESCRIPTIONS", "OPENING_BALANCE", "CLOSING_BALANCE"}) {
    CAPTURE(std::string(tied));
    CHECK_FALSE(e.evidence.at(tied).vouched);
    CHECK_FALSE(e.evidence.at(tied).contradicted);
  }

  // OCR noise: an ABN with a misread digit, a date that does not exist, a BSB of 5 digits.
  e = extract_fields(page_of({"RECEIPT", "Kookaburra Cafe", "ABN 51 824 753 557",
                              "Date: 31/02/2025", "BSB 06314"}),
                     rules, kFieldNames);
  CHECK(e.fields.at("ABN") == "N/A");
  CHECK(e.fields.at("INVOICE_DATE") == "N/A");
  CHECK(e.fields.at("BSB_NUMBER") == "N/A");
  CHECK(e.fields.at("SUPPLIER") == "Kookaburra Cafe");
  CHECK(
      extract_fields(page_of(std::vector<std::string>{}), rules, kFieldNames).fields.at("TOTAL") ==
      "N/A");
}

TEST_CASE(
    "OCR amounts as the world prints them: currency marks, decimal commas, grouping, OCR's "
    "spaces") {
  const auto amount = [](std::string_view text, bool whole = false) {
    return value_or_none(parse_amount(text, lexicon(), whole));
  };
  CHECK(amount("CASH RM 10.00") == "RM 10.00");
  CHECK(amount("RM9.90") == "RM 9.90");
  CHECK(amount("Tota) Incl. GST@6x RN 9,90") == "9.90");  // decimal comma; "6x" is not money
  CHECK(amount("Totaal € 56,02") == "€56.02");
  CHECK(amount("Endsumme 963,12 €") == "€963.12");  // the mark after the amount
  CHECK(amount("Rechnungssumme brutto 1.005,55") == "1,005.55");
  CHECK(amount("EUR 1.234,56") == "€1,234.56");
  CHECK(amount("Total CHF 2'606.35") == "CHF 2,606.35");  // Swiss apostrophes
  CHECK(amount("Celkem k úhradě 1 210,00 Kč") ==
        "Kč 1,210.00");  // thousands by a space before a mark
  CHECK(amount("£3.00 GBP") == "£3.00");
  CHECK(amount("Total RM Incl. of GST 11. 80") == "11.80");  // OCR split the cents off
  CHECK(amount("Whiteboard 2 $129 .32") == "$129.32");
  CHECK(amount("Rs 1939") == "₹1,939.00");  // whole, but a currency mark vouches for it
  CHECK(amount("Total 1939") == "<none>");  // whole and bare: only when a label vouches
  CHECK(amount("Total 1939", true) == "1,939.00");
  CHECK(amount("GST @6% 0.56 18:52") == "0.56");  // not the percentage, not the time
  CHECK(amount("Tel 03-7859 0861") == "<none>");
  CHECK(amount("28.12.17") == "<none>");  // a date
  CHECK(amount("PADLOCK 50MM") == "<none>");
  CHECK(amount("0012.50") == "<none>");  // leading zeros: an id
  CHECK(amount("1.5 kg") == "<none>");
  CHECK(amount("Total 1O.5O") == "10.50");  // OCR's O for 0
  CHECK(amount("Total 10.5OL") == "<none>");
  CHECK(amount("Change RMO.00") == "RM 0.00");
  CHECK(amount("Total After Adj 45 55", true) ==
        "45.55");  // a label vouches: the space was the point
  CHECK(amount("Total After Adj 45 55") == "<none>");
  CHECK(amount("Total 2 45.50", true) == "45.50");
  CHECK(amount("NET TOTAL 174.9", true) == "174.90");  // OCR lost the last zero
  const auto all = find_amounts("Total 261.32 15.68 277.00", lexicon());
  REQUIRE(all.size() == 3);
  CHECK(all[2].cents == 27700);
  CHECK(format_amount(123456789, "$") == "$1,234,567.89");
  CHECK(format_amount(5, "") == "0.05");
  CHECK(amount_cents("RM 9.90") == 990);
}

TEST_CASE(
    "OCR dates as the world prints them: month names in seven languages, two-digit years, day or "
    "month first") {
  const auto date = [](std::string_view text, DateOrder order = DateOrder::Dmy) {
    return value_or_none(parse_date(text, lexicon(), order));
  };
  CHECK(date("28-12-17 18: 52 SHOT 1109") ==
        "28/12/2017");  // a time after the date does not spoil it
  CHECK(date("06 APR 2018") == "06/04/2018");
  CHECK(date("20/JAN/2017") == "20/01/2017");
  CHECK(date("24-MAR-18") == "24/03/2018");
  CHECK(date("24 Mar 18 09:12:41 PM") == "24/03/2018");
  CHECK(date("OCT 3, 2016") == "03/10/2016");
  CHECK(date("(06/12/2016)") == "06/12/2016");
  CHECK(date("2018-01-05") == "05/01/2018");
  CHECK(date("Liefer- und Rechnungsdatum: 11. Juli 2014") == "11/07/2014");
  CHECK(date("3. März 2025") == "03/03/2025");
  CHECK(date("MÄRZ 3, 2025") == "03/03/2025");  // case-folded beyond ASCII
  CHECK(date("le 3 février 2024") == "03/02/2024");
  CHECK(date("18 april 2014") == "18/04/2014");
  CHECK(date("5 de diciembre de 2023") == "<none>");  // "de" between the parts is not read
  CHECK(date("1 dicembre 2023") == "01/12/2023");
  CHECK(date("Datum vystavení 10. 02. 2015") == "10/02/2015");  // spaced
  CHECK(date("Belegdatum: 26.10.22") == "26/10/2022");
  CHECK(date("03/04/2025", DateOrder::Mdy) == "04/03/2025");
  CHECK(date("13/04/2025", DateOrder::Mdy) == "13/04/2025");  // only one reading exists
  CHECK(date("2 May 10:30") == "<none>");
  CHECK(date("Date: 1O/03/2O18") == "10/03/2018");  // OCR's O for 0
  CHECK(date("Invoice 12/O3") == "<none>");         // a time, not the year 2010
  CHECK(date("Version 1.2.3.4") == "<none>");
  // A date as read that cannot be one is repaired by one misread digit, when one repair fits.
  CHECK(date("Date: 63/05/2018") == "03/05/2018");      // 6 for 0 in the day
  CHECK(date("VII Date: 25/29/2017") == "25/09/2017");  // 2 for 0 in the month
  CHECK(date("Date: 55/55/2018") == "<none>");          // no misread of 5 is known
  CHECK(date("02/05/2078") == "02/05/2018");            // a year decades ahead: 7 for 1
  CHECK(date("14 MAR 2048") == "14/03/2018");           // 4 for 1
  CHECK(date("02/05/2055") == "<none>");                // decades ahead, no misread explains it
  CHECK(date("Due 31/12/3000") == "<none>");
  CHECK(date("Due 30/06/2026") == "30/06/2026");  // next year is a date, not a misread
  // As Tesseract read receipts 054, 204, 485 and 084 (bench/ocr/README.md).
  CHECK(date("12-02-2618 11:34:45 AM") == "12/02/2018");  // the year's second digit: 6 for 0
  CHECK(date("12/03/2518 13:07") == "12/03/2018");        // any digit there: a year is 20YY
  CHECK(date("Bate: 08/49/2017") == "08/09/2017");        // 4 for 0 in the month (4 for 1: 19)
  CHECK(date("Date: 41/03/2018") == "<none>");            // 4 for 0 or for 1: 01 or 11, no choice
  CHECK(date("BATES O4/09/2U17 enn") == "04/09/2017");    // look-alike letters in a date's shape
  CHECK(date("Ref O4/U9") == "<none>");                   // no date's shape: left as read
  // A three-letter month one letter off, between a day and a year: only when one month is that
  // close.
  CHECK(date("CB#: 4507 25/Fcb/2017 07:43:54") == "25/02/2017");
  CHECK(date("25/Fen/2017") == "<none>");  // Feb, or Italian gen(naio)
  CHECK(date("CB# : 59581331715 14/fMay/2017 02:56:39") == "14/05/2017");  // a stray letter
  CHECK(date("14/Junl/2017") == "<none>");  // Jun with an l, or Jul with an n: no choice
  CHECK(date("25 Fcb 2017") == "<none>");   // without separators it is no date
  CHECK(date("1303/2018") == "<none>");     // an invoice number as likely as a date
  // ... but under a date label, the day and month OCR joined (SROIE receipt 055,
  // bench/ocr/README.md).
  const Rules rules = load_rules("builtin:ocr-rules");
  CHECK(extract_fields(page_of({"HOLLOW PUNCH SDN BHD", "Doc No 80003663 Date: 1303/2018"}), rules,
                       kFieldNames)
            .fields.at("INVOICE_DATE") == "13/03/2018");
  CHECK(extract_fields(page_of({"HOLLOW PUNCH SDN BHD", "Inv No: 1303/2018"}), rules, kFieldNames)
            .fields.at("INVOICE_DATE") == "N/A");
  const auto found = find_dates("11/15/2019 and 03/04/2019", lexicon());
  REQUIRE(found.size() == 2);
  CHECK(found[0].month_first_only);
  CHECK_FALSE(found[1].month_first_only);
  CHECK_FALSE(found[1].day_first_only);
}

TEST_CASE(
    "OCR labels match through one misread letter in words of five letters or more, never in short "
    "ones") {
  const auto at = [](const std::string& text, const std::string& label) {
    const auto hits = find_label(lowercase(text), label);
    return hits.empty() ? std::string("<none>")
                        : text.substr(hits[0].first, hits[0].second - hits[0].first);
  };
  CHECK(at("T0TAL 12.00", "total") == "T0TAL");
  CHECK(at("TOFAL 12.00", "total") == "TOFAL");
  CHECK(at("Tota) Incl. GST 9.90", "total") == "Tota)");
  CHECK(at("SUBTOTAI 9.34", "subtotal") == "SUBTOTAI");
  CHECK(at("Total (inc. GST) 9.90", "total (inc gst)") == "Total (inc. GST)");
  CHECK(at("Gesamtbetrag: 12,00", "gesamtbetrag") == "Gesamtbetrag");
  // An "m" read as the two strokes it is printed with (docs/ocr.md, "Labels").
  CHECK(at("Aniount Due $626.11", "amount due") == "Aniount Due");
  CHECK(at("Arnount payable 9.90", "amount payable") == "Arnount payable");
  CHECK(at("Tex 1.00", "tax") == "<none>");  // three letters: exact only
  CHECK(at("Data plan", "date") == "<none>");
  CHECK(at("Subtotal 9.00", "total") == "<none>");  // a whole word, not a part of one
  CHECK(find_label("supplies", "supplier", /*fuzzy=*/false).empty());
}

TEST_CASE(
    "OCR rules on a scanned receipt: the total ranked, the date by a time, the seller over its "
    "registration line") {
  const Rules rules = load_rules("builtin:ocr-rules");
  // As Tesseract read receipt 047 (a Malaysian receipt; bench/ocr/README.md), shortened.
  const auto e = extract_fields(
      page_of({"MR. D.I.Y. SDN BHD", "(CO.REG :704427-T )", "LOT 1851-A & 1851-B, JALAN KPB 6,",
               "KAWASAN PERINDUSTRIAN BALAKONG,", "43300 SERI KEMBANGAN, SELANGOR",
               "(GST ID No :001092886528)", "~TAX INVOICE-", "",
               "PADLOCK 50MM          1X 9.90     9,90", "Total Qty 1",
               "Tota) Incl. GST@6x        RN 9,90", "CASH                     RM 10.00",
               "CHANGE                    RM 0.10", "GST Summary Amt(RM) Tax(RM)",
               "Total                9.34     0.56", "", "28-12-17 18: 52 SHOT 1109 T1 R000020832",
               "OPERATOR TRAINEE CASHIER"}),
      rules, kFieldNames);
  CHECK(e.fields.at("SUPPLIER") == "MR. D.I.Y. SDN BHD");
  CHECK(e.fields.at("TOTAL") ==
        "RM 9.90");  // not the tax summary's 9.34 or 0.56, not "Total Qty 1"
  CHECK(e.fields.at("INVOICE_DATE") == "28/12/2017");
  CHECK(e.checks["date_by_position"] == true);
  CHECK(e.fields.at("BUSINESS_ADDRESS") ==
        "LOT 1851-A & 1851-B, JALAN KPB 6, KAWASAN PERINDUSTRIAN BALAKONG, 43300 SERI KEMBANGAN, "
        "SELANGOR");

  // Cash - change decides between two labelled totals; a name on two lines is joined; a lead-in
  // before the legal name is dropped.
  auto r =
      extract_fields(page_of({"POPULAR BOOK", "CO. (M) SDN BHD", "(Co. No. 113825-W)",
                              "Total 31.45", "Total Payable 34.45", "Cash 50.00", "Change 18.55"}),
                     rules, kFieldNames);
  CHECK(r.fields.at("SUPPLIER") == "POPULAR BOOK CO. (M) SDN BHD");
  // Its two lines' pieces, for the second recognizer, which reads one line at a time (engine.h).
  const std::vector<Box> parts = r.evidence.at("SUPPLIER").parts;
  REQUIRE(parts.size() == 2);
  CHECK(
      (parts[0].left == 0 && parts[0].top == 0 && parts[0].right == 120 && parts[0].bottom == 20));
  CHECK(
      (parts[1].left == 0 && parts[1].top == 30 && parts[1].right == 150 && parts[1].bottom == 50));
  CHECK(r.fields.at("TOTAL") == "31.45");  // 50.00 - 18.55, over the stronger label's misread 34.45
  r = extract_fields(page_of({"OLD TOWN", "OWN BY: CHEF LEE SDN BHD",
                              "LG226, LGF, 1 UTAMA SHOPPING CENTRE", "TOTAL RM96.20"}),
                     rules, kFieldNames);
  CHECK(r.fields.at("SUPPLIER") == "CHEF LEE SDN BHD");
  CHECK(r.fields.at("TOTAL") == "RM 96.20");
  // No total label read: a subtotal with the tax above it (included) is the bill; one with tax
  // below it is not, and no amount printed is their sum.
  r = extract_fields(page_of({"CHEF LEE SDN BHD", "SERV. CHG. 10% RM8.21", "GST 6% RM5.45",
                              "SUBTOTAL RM96. 20", "CASH RM10U. 00"}),
                     rules, kFieldNames);
  CHECK(r.fields.at("TOTAL") == "RM 96.20");
  CHECK(r.checks["total_from_subtotal"] == true);
  // With neither, the finder's pick is an amount no label names, and says so (its confidence is
  // an unlabelled value's: the review queue holds it).
  r = extract_fields(page_of({"CHEF LEE SDN BHD", "SUBTOTAL RM90.75", "GST 6% RM5.45"}), rules,
                     kFieldNames);
  CHECK(r.checks["total_unlabelled"] == true);
  CHECK_FALSE(r.evidence.at("TOTAL").labelled);
  // A total read directly, with cents, over cash - change where the change was misread.
  r = extract_fields(page_of({"KEDAI RUNCIT", "TOTAL RM 14.10", "CASH RM 20.00", "CHANGE RM 5.96"}),
                     rules, kFieldNames);
  CHECK(r.fields.at("TOTAL") == "RM 14.10");
  // The yen sign OCR reads for a serifed Y; "Sdn" marks a legal name even when "Bhd" is misread,
  // so the seller at the top wins over its customer's legal name further down.
  r = extract_fields(page_of({"MR. D.I.Y¥. (M) SDN BHD", "LOT 1851-A & 1851-B, JALAN KPB 6,"}),
                     rules, kFieldNames);
  CHECK(r.fields.at("SUPPLIER") == "MR. D.I.Y. (M) SDN BHD");
  r = extract_fields(page_of({"MR. D.I.¥. (M) SDN BHD"}), rules, kFieldNames);
  CHECK(r.fields.at("SUPPLIER") == "MR. D.I.Y. (M) SDN BHD");
  r = extract_fields(
      page_of({"GARDENIA BAKERIES (KL) SDN BILD (139386 X)", "Lot 3, Jalan Pelabur 23/1,",
               "40300 Shah Alam, Selangor.", "TAX INVOICE / ADJUSTMENT NOTE",
               "Cash Inv No.: 7014F714", "MAKASSAR FRESH MARKET SDN BHD", "Total Payable: 15.57"}),
      rules, kFieldNames);
  CHECK(r.fields.at("SUPPLIER").rfind("GARDENIA BAKERIES (KL) SDN", 0) == 0);
  // "CUSTOMER'S COPY" is no payer label: it would put the seller's block in the payer's.
  r = extract_fields(page_of({"GARDENIA BAKERIES (KL) SDN BHD (139386 x)",
                              "Lot 3, Jalan Pelabur 23/1,", "40300 Shah Alam, Selangor.",
                              "TAX INVOICE", "Total Payable: 60.24", "CUSTOMER'S COPY"}),
                     rules, kFieldNames);
  CHECK(r.fields.at("PAYER_NAME") == "N/A");
  CHECK(r.fields.at("SUPPLIER") == "GARDENIA BAKERIES (KL) SDN BHD");
  CHECK(find_label("customer's copy", "customer").empty());
  CHECK(find_label("customer: acme pty ltd", "customer").size() == 1);
  // Cash - change outweighs a stronger label below the rounding line that OCR misread.
  r = extract_fields(page_of({"SANYU STATIONERY SHOP", "Total 33.50", "Round Adj 0.00",
                              "Final Total 3.50", "CASH 50.00", "CHANGE 16.50"}),
                     rules, kFieldNames);
  CHECK(r.fields.at("TOTAL") == "33.50");
  // A payment word inside a name is a word of the name; a trading name above the legal one joins
  // it; "Kedai" is not the state of Kedah; an address line ends in a comma.
  r = extract_fields(page_of({"SUPER SEVEN CASH & CARRY SDN BHD", "(590150-A)", "TOTAL 12.00"}),
                     rules, kFieldNames);
  CHECK(r.fields.at("SUPPLIER") == "SUPER SEVEN CASH & CARRY SDN BHD");
  r = extract_fields(page_of({"BECON STATIONER", "Becon Enterprise Sdn Bhd",
                              "No. 1, Jalan Setia, 40170 Shah Alam"}),
                     rules, kFieldNames);
  CHECK(r.fields.at("SUPPLIER") == "BECON STATIONER Becon Enterprise Sdn Bhd");
  CHECK(r.fields.at("BUSINESS_ADDRESS") == "No. 1, Jalan Setia, 40170 Shah Alam");
  // A name printed tilted, its company form read a line above its words and to their right
  // (receipt 017 of the 427): the words come first. A company form alone is no name.
  {
    std::vector<Word> words;
    const auto place = [&](const std::string& line, int x, int y) {
      std::istringstream in(line);
      for (std::string w; in >> w; x += 10 * static_cast<int>(w.size()) + 10)
        words.push_back({w, {x, y, x + 10 * static_cast<int>(w.size()), y + 20}, 95.0f});
    };
    place("SDN BHD", 290, 0);
    place("LIGHTROOM GALLERY", 100, 22);
    place("No: 28, JALAN ASTANA 1C,", 60, 60);
    place("BANDAR BUKIT RAJA, 41050 KLANG", 60, 90);
    r = extract_fields(layout_page(std::move(words), 850, 1100), rules, kFieldNames);
    CHECK(r.fields.at("SUPPLIER") == "LIGHTROOM GALLERY SDN BHD");
  }
  r = extract_fields(
      page_of({"KEDAI PAPAN YEW CHUAN", "LOT 276 JALAN BANTING", "43800 DENGKIL, SELANGOR."}),
      rules, kFieldNames);
  CHECK(r.fields.at("SUPPLIER") == "KEDAI PAPAN YEW CHUAN");
  CHECK(r.fields.at("BUSINESS_ADDRESS") == "LOT 276 JALAN BANTING 43800 DENGKIL, SELANGOR.");
  // The seller's registration number between its name and its address is neither, however it is
  // labelled; a date and time under the name is no address (its year is no postcode).
  for (const char* number :
       {"(65351-M)", "Company No: 734055-M", "({CO.NO. 1208604-T)", "Company Reg. No. : 7251 86-V",
        "COMPANY NO(814198-X)", "(No. 193673-M)", "03 Apr 2018 18:33"}) {
    r = extract_fields(page_of({"MAKASSAR FRESH MARKET SDN BHD", number, "GROUND FLOOR, NO.4 & 6,",
                                "47500 SUBANG JAYA, SELANGOR."}),
                       rules, kFieldNames);
    CHECK_MESSAGE(
        r.fields.at("BUSINESS_ADDRESS") == "GROUND FLOOR, NO.4 & 6, 47500 SUBANG JAYA, SELANGOR.",
        number);
  }
  // A line of place names inside the address is kept where the next line goes on with it; a line
  // after the address that no address line follows is not.
  r = extract_fields(page_of({"SYARIKAT PERNIAGAAN GIN KEE", "NO 290, JALAN AIR PANAS,", "SETAPAK",
                              "53200, KUALA LUMPUR.", "TEL : 03-40210276"}),
                     rules, kFieldNames);
  CHECK(r.fields.at("BUSINESS_ADDRESS") == "NO 290, JALAN AIR PANAS, SETAPAK 53200, KUALA LUMPUR.");
  r = extract_fields(page_of({"SYARIKAT PERNIAGAAN GIN KEE", "NO 290, JALAN AIR PANAS, 53200",
                              "KUALA LUMPUR", "CASHIER ALI", "TOTAL 12.00"}),
                     rules, kFieldNames);
  CHECK(r.fields.at("BUSINESS_ADDRESS") == "NO 290, JALAN AIR PANAS, 53200 KUALA LUMPUR");
  // Nor a phone line whose label OCR misread, though an address-like line follows it.
  r = extract_fields(page_of({"Eucalypt IT Services", "Perth WA 6000", "mone ne: (04) 8898 8584",
                              "www.eucalypt.com.au, Perth WA 6000"}),
                     rules, kFieldNames);
  CHECK(r.fields.at("BUSINESS_ADDRESS") == "Perth WA 6000");
  // Two such lines in a row, where an address line follows them; a speck Tesseract read ("." or
  // ":" alone) does not end the address. The address's evidence is its own words: their
  // confidences, each line a part for the second recognizer, and whether it stops short.
  Page page = page_of({"BEYOND BROTHERS HARDWARE", "LOT 1-0-2, JLN 1/50,", "DIAMOND SQUARE", ".",
                       "OFF JLN GOMBAK", "53000 KUALA LUMPUR", "TEL : 03-40211233"});
  page.lines[4].words[1].confidence = 41.0f;  // "JLN" of "OFF JLN GOMBAK"
  r = extract_fields(page, rules, kFieldNames);
  CHECK(r.fields.at("BUSINESS_ADDRESS") ==
        "LOT 1-0-2, JLN 1/50, DIAMOND SQUARE OFF JLN GOMBAK 53000 KUALA LUMPUR");
  const Evidence& address = r.evidence.at("BUSINESS_ADDRESS");
  CHECK(address.parts.size() == 4);
  CHECK(address.word_min == doctest::Approx(41.0));
  CHECK(r.evidence.at("SUPPLIER").word_min == doctest::Approx(95.0));
  CHECK_FALSE(address.cut);
  CHECK(address.ended);  // a region last
  r = extract_fields(
      page_of({"BEYOND BROTHERS HARDWARE", "LOT 1-0-2, JLN 1/50,", "TEL : 03-40211233"}), rules,
      kFieldNames);
  CHECK(r.fields.at("BUSINESS_ADDRESS") == "LOT 1-0-2, JLN 1/50,");
  CHECK(r.evidence.at("BUSINESS_ADDRESS").cut);  // ends with a comma
  r = extract_fields(page_of({"BEYOND BROTHERS HARDWARE", "40300 Shah Alam, Selangor."}), rules,
                     kFieldNames);
  CHECK(r.fields.at("BUSINESS_ADDRESS") == "40300 Shah Alam, Selangor.");
  CHECK(r.evidence.at("BUSINESS_ADDRESS").cut);    // starts at its postcode
  CHECK(r.evidence.at("BUSINESS_ADDRESS").ended);  // a region last
  // Where an address shows its end: a region, a country or a home city last, a postcode after it
  // aside, case and accents aside; not a town the rules do not name, nor a region mid-line.
  for (const auto& [lines, ended] : std::vector<std::pair<std::vector<std::string>, bool>>{
           {{"HARBOUR SUPPLIES PTY LTD", "7 Elizabeth Street", "Hobart TAS 7000"}, true},
           {{"HARBOUR SUPPLIES PTY LTD", "5 Kings Rd, SYDNÉY"}, true},
           {{"KEDAI ABC", "12 Jalan Ipoh, 51200 Kuala Lumpur,", "Malaysia."}, true},
           {{"CAFE ZENTRAL GMBH", "Stephansplatz 4, 1010 Wien, Österreich"}, true},
           {{"KEDAI ABC", "12 Jalan Ipoh,", "51200 Sentul", "TEL : 03-40211233"}, false},
           {{"KEDAI ABC", "12 Jalan Selangor 5, 51200 Sentul"}, false}}) {
    r = extract_fields(page_of(lines), rules, kFieldNames);
    CAPTURE(r.fields.at("BUSINESS_ADDRESS"));
    CHECK(r.evidence.at("BUSINESS_ADDRESS").ended == ended);
  }
  r = extract_fields(page_of({"Wangsa Link, Wangsa Maju,", "ADVANCO COMPANY"}), rules, kFieldNames);
  CHECK(r.fields.at("SUPPLIER") == "ADVANCO COMPANY");
  // No total label read at all: what was paid is the total.
  r = extract_fields(page_of({"KEDAI PAPAN YEW CHUAN", "Voucher 10.00", "Change 5.00"}), rules,
                     kFieldNames);
  CHECK_FALSE(r.checks.contains("total_from_payment"));  // "Voucher" is not a payment word
  CHECK_FALSE(r.evidence.at("TOTAL").labelled);
  r = extract_fields(page_of({"KEDAI PAPAN YEW CHUAN", "Cash 10.00", "Change 5.00"}), rules,
                     kFieldNames);
  CHECK(r.fields.at("TOTAL") == "5.00");
  CHECK(r.checks["total_from_payment"] == true);
}

TEST_CASE(
    "OCR seller names: a digit in dotted initials and a trade word one misread letter off are read "
    "back") {
  const Rules rules = load_rules("builtin:ocr-rules");
  using docsift::ocr::repair_name;
  // On strings, as Tesseract read receipts 107, 108 and 173 (bench/ocr/README.md).
  CHECK(repair_name("MR. D.1.Y. (M) SDN BHD", rules) == "MR. D.I.Y. (M) SDN BHD");
  CHECK(repair_name("A.8.C. 0.5.", rules) == "A.B.C. O.S.");
  CHECK(repair_name("AIK HUAT HARDUARE ENTERPRISE (SETIA ALAM) SDN RHE", rules) ==
        "AIK HUAT HARDWARE ENTERPRISE (SETIA ALAM) SDN RHE");
  CHECK(repair_name("KESTAURANT JIAWE", rules) == "RESTAURANT JIAWE");
  CHECK(repair_name("Kestaurant Jiawei", rules) == "Restaurant Jiawei");  // the word's own case
  CHECK(repair_name("Bakkerij Stationers", rules) ==
        "Bakkerij Stationers");  // already words of trade
  // Two words of trade read as one (receipt 177): split where both halves are words of trade.
  CHECK(repair_name("SYARIKATPERNIAGAAN GIN KEE", rules) == "SYARIKAT PERNIAGAAN GIN KEE");
  CHECK(repair_name("Syarikatperniagaan", rules) == "Syarikat perniagaan");
  // Left as read: names that are no word of trade, short words, dotted initials without a digit,
  // numbers, brackets, and a word one edit from two words of trade ("restaurante", "restaurants").
  for (const char* same : {"GARDENIA BAKERIES (KE) SDN BHD", "SANYO STATIONERY SHOP", "MR. D.I.Y.",
                           "LOT 1851-A", "DE LUXIE CIRCLE", "GOLDEN KEY MAKER", "RESTAURANTX",
                           "CAR RENTAL", "SERVICE", "RESTORANKITA", "BAKERYSHOP"}) {
    CAPTURE(same);
    CHECK(repair_name(same, rules) == same);
  }
  // On a page: the seller's line is repaired after it was chosen, the total and date as before.
  const auto e =
      extract_fields(page_of({"AIK HUAT HARDUARE ENTERPRISE (SETIA", "ALAM) SDN BHD",
                              "(CO.REG :822737-X)", "NO. 5, JALAN BK 5A/2, BANDAR KINRARA",
                              "TAX INVOICE", "TOTAL RM 14.60", "17/01/2018 11:31"}),
                     rules, kFieldNames);
  CHECK(e.fields.at("SUPPLIER") == "AIK HUAT HARDWARE ENTERPRISE (SETIA ALAM) SDN BHD");
  CHECK(e.fields.at("TOTAL") == "RM 14.60");
  CHECK(e.fields.at("INVOICE_DATE") == "17/01/2018");
}

TEST_CASE(
    "OCR totals: a misread digit undone when one repair makes the printed sums agree, the rounded "
    "total, card payments") {
  // The digits undone: a 6 read for a 0 and the other look-alikes, never into a leading zero.
  const auto variants = misread_amounts(1166);  // 11.66
  CHECK(std::count(variants.begin(), variants.end(), 1160) == 1);
  CHECK(std::count(variants.begin(), variants.end(), 1106) == 1);
  CHECK(std::count(variants.begin(), variants.end(), 1166) == 0);
  const auto six_hundred = misread_amounts(600);
  CHECK(std::count(six_hundred.begin(), six_hundred.end(), 0) == 0);
  CHECK(misread_amounts(0).empty());
  // A tax at one whole rate, within a cent, the rate within its bounds.
  CHECK(whole_percentage(1472900, 147290, 1, 30));        // 10 %
  CHECK_FALSE(whole_percentage(1472900, 147200, 1, 30));  // 9.994 %
  CHECK(whole_percentage(1094, 66, 1, 30));               // 6 % of 10.94 is 65.64 cents
  CHECK_FALSE(whole_percentage(1000, 310, 1, 25));        // 31 %, over the bounds
  CHECK(whole_percentage(1000, 310, 1, 31));
  CHECK_FALSE(whole_percentage(1000, 0, 1, 30));  // no tax
  CHECK_FALSE(whole_percentage(0, 10, 1, 30));    // nothing levied on

  const Rules rules = load_rules("builtin:ocr-rules");
  // As Tesseract read SROIE receipt 091 (bench/ocr/README.md): "TOTAL 11.66" under 10.94 + 0.66.
  auto r = extract_fields(
      page_of({"RESTORAN DE COFFEE", "Sub Total 10.94", "Total GST 0.66", "TOTAL 11.66"}), rules,
      kFieldNames);
  CHECK(r.fields.at("TOTAL") == "11.60");
  CHECK(r.checks["total_repaired"] == true);
  // 446.jpg: total, cash and change all read with a 6 for a 0; cash - change agrees with one
  // repair.
  r = extract_fields(page_of({"MR. D.I.Y. (KUCHAI) SDN BHD", "Total Incl. GST 6% RM 119.76",
                              "CASH RM 120.06", "CHANGE RM 0.36"}),
                     rules, kFieldNames);
  CHECK(r.fields.at("TOTAL") == "RM 119.70");
  // Nothing to agree with: the total stays as read.
  r = extract_fields(page_of({"RESTORAN DE COFFEE", "TOTAL 11.66"}), rules, kFieldNames);
  CHECK(r.fields.at("TOTAL") == "11.66");
  CHECK_FALSE(r.checks.contains("total_repaired"));
  // A sum more than one misread away (11.54 + 0.66 = 12.20) repairs nothing.
  r = extract_fields(
      page_of({"RESTORAN DE COFFEE", "Sub Total 11.54", "Total GST 0.66", "TOTAL 11.66"}), rules,
      kFieldNames);
  CHECK(r.fields.at("TOTAL") == "11.66");
  // The tax misread, not the total (a generated invoice of a held-apart layout): 1,472.90 is 10 %
  // of 14,729.00 and 1,472.00 no whole percentage of it, so the total as read stays, and the sums
  // disagree for a person to see. 11.66 - 10.94 above is none, and is repaired.
  r = extract_fields(
      page_of({"EUCALYPT IT SERVICES", "Subtotal $14,729.00", "GST $1,472.00", "TOTAL $16,201.90"}),
      rules, kFieldNames);
  CHECK(r.fields.at("TOTAL") == "$16,201.90");
  CHECK_FALSE(r.checks.contains("total_repaired"));
  // A PDF's text layer is exact: no misread to undo.
  Page exact = page_of({"RESTORAN DE COFFEE", "Sub Total 10.94", "Total GST 0.66", "TOTAL 11.66"});
  exact.exact = true;
  CHECK(extract_fields(exact, rules, kFieldNames).fields.at("TOTAL") == "11.66");

  // 233.jpg: the total on the rounding line, under its own (misread) label, is what was paid
  // (the payment lines below it as Tesseract read them).
  r = extract_fields(
      page_of({"AEON CO. (M) BHD", "Sub-total 17.76", "Total Sales Incl GST 17.76",
               "Tota] After Adj [nc] GST 17.70", "CASH 50,76", "{ten Count 3 Change Amt 33,90"}),
      rules, kFieldNames);
  CHECK(r.fields.at("TOTAL") == "17.70");
  // ... but the rounding's own amount there is not.
  r = extract_fields(
      page_of({"AEON CO. (M) BHD", "Total Sales Incl GST 17.76", "Rounding Adj -0.06"}), rules,
      kFieldNames);
  CHECK(r.fields.at("TOTAL") == "17.76");
  // 630.jpg: paid by credit, no change: what was charged agrees with the rounded total.
  r = extract_fields(
      page_of({"99 SPEED MART S/B", "Total Sales (Inclusive GST) RM 45.34",
               "Rounding Adjustment RM 0.01", "Rounding RM 45.35", "CREDIT RM 45.35"}),
      rules, kFieldNames);
  CHECK(r.fields.at("TOTAL") == "RM 45.35");
  // 596.jpg: no total label readable, a card payment with no change: the card was charged the
  // total.
  r = extract_fields(page_of({"POPULAR BOOK CO. (M) SDN BHD",
                              "Totd/shfes|Inclusive GST @6.00%: aa 80", "Master Card 63.80"}),
                     rules, kFieldNames);
  CHECK(r.fields.at("TOTAL") == "63.80");
  CHECK(r.checks["total_from_card"] == true);
  // 093.jpg: a second, larger subtotal below the first ("NET TOTAL", after a service charge and
  // tax) is proposed as the bill's total (a weak label, its cents unprinted: the trained finder
  // takes the subtotal over it here); no second one leaves the subtotal as the subtotal.
  r = extract_fields(page_of({"THREE STOOGES", "1 SUB TOTAL 169.00", "SERVICE CHARGE 10% 16.90",
                              "NET TOTAL 174.9", "CHANGE 25.10"}),
                     rules, kFieldNames);
  CHECK(proposed(r, "174.90", "label_weak"));
  CHECK(r.fields.at("SUBTOTAL") == "169.00");
  r = extract_fields(page_of({"THREE STOOGES", "NET TOTAL 174.90", "SUB TOTAL 169.00"}), rules,
                     kFieldNames);
  CHECK(r.fields.at("SUBTOTAL") == "174.90");
  // 204.jpg: the total's label ends its line, its amount alone on the line below and set to the
  // right (under nothing of the label's); the GST summary's "Total 0% supplies" above is not it.
  const auto total_of = [&](const std::vector<std::string>& lines) {
    return extract_fields(page_of(lines), rules, kFieldNames).fields.at("TOTAL");
  };
  CHECK(total_of({"GARDENIA BAKERIES (KL) SDN BHD", "Total 0% supplies: 15.57",
                  "Total Payable:", "                    23.20"}) == "23.20");
  // A line below that holds more than an amount is another line's ("Cash 50.00"), not the value.
  CHECK(total_of({"GARDENIA BAKERIES (KL) SDN BHD",
                  "Total Payable:", "                    Cash 50.00"}) != "50.00");
  // Cash with no change read is not the total: change is often handed back unprinted or unread.
  r = extract_fields(page_of({"POPULAR BOOK CO. (M) SDN BHD",
                              "Totd/shfes|Inclusive GST @6.00%: aa 80", "Cash 100.00"}),
                     rules, kFieldNames);
  CHECK(r.fields.at("TOTAL") == "N/A");
}

TEST_CASE(
    "OCR totals: a tax row's net + tax, a total printed without its point, a label read from its "
    "last words") {
  const Rules rules = load_rules("builtin:ocr-rules");
  const auto read = [&](const std::vector<std::string>& lines) {
    return extract_fields(page_of(lines), rules, kFieldNames);
  };
  // The 200's 553: a tax row (net 16.98, 6 % tax 1.02) vouches for the total 18.00 as subtotal +
  // tax would; a tax that is no whole percentage of the net (1.50 is 8.8 %), or over a quarter of
  // it (4.15 is 30 % of 13.85, within a cent), is no tax row.
  const auto vouched = [&](const std::string& row) {
    return read({"BOOK TA .K SDN BHD", "Total Sales Inclusive GST : 18.00",
                 "Tax Code % Taxable Amount GST", row})
        .evidence.at("TOTAL")
        .sums_agree;
  };
  CHECK(vouched("SR 6.00 16.98 1.02"));
  CHECK_FALSE(vouched("SR 6.00 16.50 1.50"));
  CHECK_FALSE(vouched("SR 6.00 13.85 4.15"));
  // Under a rounding line the row is the bill before rounding (the 427's 023): it vouches for
  // the rounded total, not for itself.
  const auto rounded_vouched = [&](const std::string& total) {
    return read({"MR. D.I.Y. (M) SDN BHD", "SR 6.00 26.00 1.56", "ROUNDING : -0.01",
                 "TOTAL " + total})
        .evidence.at("TOTAL")
        .sums_agree;
  };
  CHECK(rounded_vouched("27.55"));
  CHECK_FALSE(rounded_vouched("27.56"));
  // The 200's 442: no total label readable; cash - change (38.80 read for 7,838.80 would not do,
  // 7,840.00 - 1.20 does) is what the tax row sums to, and beats the row's net under "Total(RM)".
  CHECK(read({"HON HWA HARDWARE TRADING", "GST% Amt(RM) GST(RM) Total(RM)",
              "SR 6 7,395.09 443.71 7,838.80", "CASH (MYR) 7,840.00", "Change 1.20"})
            .fields.at("TOTAL") == "7,838.80");
  // The 200's 514: the total's digits read without their point, the page printing the amount with
  // it in its tax summary; without that, the digits are no amount.
  CHECK(
      read({"PERNIAGAAN ZHENG HUI", "Total Sales Inclusive GST @0.00%: 3045", "Sh 0.00 30.45 0.00"})
          .fields.at("TOTAL") == "30.45");
  CHECK(
      read({"PERNIAGAAN ZHENG HUI", "Total Sales Inclusive GST @0.00%: 3045", "Sh 0.00 31.45 0.00"})
          .fields.at("TOTAL") != "30.45");
  // The 200's 647: "Total" misread past one edit ("Tose!"); "inclusive GST", a weak label, names
  // a candidate still, below the rounding line, beside a subtotal read as a plain total ("SubT
  // otal"), which the trained finder takes on this page of four lines.
  CHECK(proposed(read({"SYARIKAT PERNIAGAAN GIN KEE", "SubT otal: 284.00", "Rounding Adj : 0.00",
                       "Tose! inclusive GST: 217.00"}),
                 "217.00", "label_weak"));
  // A GST summary's "Total 0% supplies" with its 0 misread is no total either (beside "Total
  // Payable" read past one edit, the 200's 080).
  CHECK(read({"GARDENIA BAKERIES (KL) SDN BHD", "Total @% supplies: 9.62", "Total Payate: 5.90"})
            .fields.at("TOTAL") == "5.90");
  // The invoices' de-awv: "Endbetrag" heads a column of a row per tax rate over their sum, which
  // is the total; where no row sums those above it, the first row under the label is read, as
  // before.
  const auto column = [&](const std::string& last) {
    return read({"MUSTERLIEFERANT GMBH", "Nettobetrag MwSt-Betrag MwSt-% Endbetrag",
                 "321,40 61,07 19,0 382,47", "127,59 8,93 7,0 136,52", "448,99 70,00 EUR " + last})
        .fields.at("TOTAL");
  };
  CHECK(column("518,99") == "€518.99");
  CHECK(column("518,98") == "€382.47");
}

TEST_CASE("OCR totals: the rounding line's sum repairs a misread total and vouches for it") {
  const Rules rules = load_rules("builtin:ocr-rules");
  // 144.jpg as read: the rounding's amount unread ("-J.02"); the subtotal rounded to 5 cents is
  // 88.95, one misread 8 (read 3) from the total.
  auto r = extract_fields(page_of({"AEON CO. (M) BHD", "Sub-total 88.97", "Rounding Adj -J.02",
                                   "Total After Adj Incl GST 83.95", "CASH 100.00"}),
                          rules, kFieldNames);
  CHECK(r.fields.at("TOTAL") == "88.95");
  CHECK(r.checks["total_repaired"] == true);
  CHECK(r.confidence.at("TOTAL") == 100);  // vouched for by the subtotal
  // 440.jpg's evened reading: subtotal 14.00, rounding 0.00, total read 14.06.
  r = extract_fields(
      page_of({"SANYO STATIONERY", "SUB-TOTAL (GST) 14.00", "ROUNDING 0.00", "TOTAL 14.06"}), rules,
      kFieldNames);
  CHECK(r.fields.at("TOTAL") == "14.00");
  // The rounding's amount read, with or without its minus sign: subtotal + tax ± rounding.
  for (const char* rounding : {"Rounding Adj -0.02", "Rounding Adj 0.02"}) {
    CAPTURE(rounding);
    r = extract_fields(
        page_of({"AEON CO. (M) BHD", "Sub-total 83.93", "GST 5.04", rounding, "TOTAL 88.95"}),
        rules, kFieldNames);
    CHECK(r.fields.at("TOTAL") == "88.95");
    CHECK_FALSE(r.checks.contains("total_repaired"));  // it agrees as read
    CHECK(r.confidence.at("TOTAL") == 100);
  }
  // A rounding line's amount of a unit or more is no rounding (80.00 + 5.00 does not vouch for
  // 85.00); with no rounding line, no rounded sum: the total stays as read, its confidence the
  // words'.
  for (const auto& [lines, total] :
       {std::pair{std::vector<std::string>{"AEON CO. (M) BHD", "Sub-total 80.00",
                                           "Rounding Adj 5.00", "TOTAL 85.00"},
                  "85.00"},
        std::pair{std::vector<std::string>{"AEON CO. (M) BHD", "Sub-total 88.97", "TOTAL 83.95"},
                  "83.95"}}) {
    r = extract_fields(page_of(lines), rules, kFieldNames);
    CHECK(r.fields.at("TOTAL") == total);
    CHECK(r.confidence.at("TOTAL") < 100);
  }
  // A total taken from the subtotal itself agrees with its own rounding: not vouched.
  r = extract_fields(page_of({"SANYO STATIONERY", "SUB-TOTAL (GST) 14.06", "ROUNDING 0.00"}), rules,
                     kFieldNames);
  CHECK(r.fields.at("TOTAL") == "14.06");
  CHECK(r.checks["total_from_subtotal"] == true);
  CHECK(r.confidence.at("TOTAL") < 100);
}

TEST_CASE("OCR rules: a statement's labels in other languages, and the specks OCR reads by them") {
  const Rules rules = load_rules("builtin:ocr-rules");
  auto e = extract_fields(
      page_of({"Sparkasse", "Kontoauszug", "Kontoinhaber: . Aisha Rahman",
               "BSB: 951.208   Kontonummer: 39576099", "Zeitraum: 01/07/2025 - 28/07/2025", "",
               "Anfangssaldo: 1.208,81", "", "Endsaldo: 1.373,03"}),
      rules, kFieldNames);
  CHECK(e.fields.at("ACCOUNT_HOLDER") == "Aisha Rahman");  // the speck before it dropped
  CHECK(e.fields.at("BSB_NUMBER") == "951 208");           // a speck read as a stop
  CHECK(e.fields.at("BANK_ACCOUNT_NUMBER") == "39576099");
  CHECK(e.fields.at("STATEMENT_PERIOD") == "01/07/2025 to 28/07/2025");
  e = extract_fields(
      page_of({"Banque Populaire", "Relevé de compte", "Titulaire du compte: ~~ Mei Chen",
               "Numéro de compte: 12345678", "Période: 01/03/2025 - 31/03/2025"}),
      rules, kFieldNames);
  CHECK(e.fields.at("ACCOUNT_HOLDER") == "Mei Chen");
  CHECK(e.fields.at("BANK_ACCOUNT_NUMBER") == "12345678");
  CHECK(e.fields.at("STATEMENT_PERIOD") == "01/03/2025 to 31/03/2025");
  // The heading broken over two lines with a speck in it, as a generated statement was read: a
  // statement, not an invoice whose first debit is its total (and "Releve de" no seller).
  e = extract_fields(
      page_of({"Relevé \u2018 de", "compte", "Banque: Commonwealth Bank", "Titulaire: Aisha Rahman",
               "Compte n°: 90537545", "\u2018Solde initial: $2,597.24", "Libellé Montant",
               "Rent payment $1,242.77", "Phone bill $92.43", "\u2018Solde final: $3,747.54"}),
      rules, kFieldNames);
  CHECK(e.fields.at("DOCUMENT_TYPE") == "BANK STATEMENT");
  CHECK(e.fields.at("TOTAL") == "N/A");
  CHECK(e.fields.at("SUPPLIER") == "N/A");
  CHECK(e.fields.at("BANK_NAME") == "Commonwealth Bank");
  // A line that begins no heading is none, whatever the next line holds.
  e = extract_fields(page_of({"Acme", "Invoicing dept"}), rules, kFieldNames);
  CHECK(e.fields.at("DOCUMENT_TYPE") == "N/A");
  // The rule itself: the line must begin the heading the two lines make.
  using docsift::ocr::garbled_heading, docsift::ocr::letters_only;
  CHECK(letters_only("relev\u00e9 \u2018 de") == "relev\u00e9de");
  CHECK(garbled_heading(letters_only("relev\u00e9 \u2018 de"), "compte",
                        letters_only("relev\u00e9 de compte")));
  // "acmeinvoice" holds "invoice", but "acme" begins no heading; a line alone joins nothing.
  CHECK_FALSE(garbled_heading("acme", "invoice", "invoice"));
  CHECK_FALSE(garbled_heading("taxi", "", "taxinvoice"));
}

TEST_CASE("OCR labels: a name's label of several words with specks between them") {
  const Rules rules = load_rules("builtin:ocr-rules");
  // A generated invoice as read: the payer's label with a colon after each word, the seller's
  // phone with a stop in it.
  const auto e = extract_fields(
      page_of({"Tax Invoice",
               "Supplier: Harbour Office Supplies :", "Address: 12 George Street, Sydney NSW 2000",
               "Phone: (08) 2323.9217 i", "", "\u201cBilled: to: Tom Nguyen",
               "Address: 44 Rundle Mall, Adelaide SA 5000", "Phone: (05) 3836 1918",
               "Issued: 23/02/2025", "GST: $719.36", "Total incl. GST: $7,912.97"}),
      rules, kFieldNames);
  CHECK(e.fields.at("PAYER_NAME") == "Tom Nguyen");
  CHECK(e.fields.at("PAYER_ADDRESS") == "44 Rundle Mall, Adelaide SA 5000");
  CHECK(e.fields.at("PAYER_PHONE") == "(05) 3836 1918");
  CHECK(e.fields.at("BUSINESS_PHONE") == "(08) 2323 9217");
}

TEST_CASE("OCR seller: a fragment split off the line below does not stop the name there") {
  const Rules rules = load_rules("builtin:ocr-rules");
  // SROIE's 613.jpg as read: the name's line named by the page's website, its legal form under it
  // with "co." a segment of its own, and the website read with a space after each dot.
  const auto e =
      extract_fields(page_of({"POPULAR BOOK", "co.      CM) SDN BHD", "(Co. No. 113825-W)",
                              "No 8, Jalan 7/118B, Desa Tun Razak", "56000 Kuala Lumpur, Malaysia",
                              "Total 11.00", "www. popular. com. my"}),
                     rules, kFieldNames);
  CHECK(e.fields.at("SUPPLIER") == "POPULAR BOOK CM) SDN BHD");  // not "POPULAR BOOK"
  CHECK(e.fields.at("SUPPLIER_WEBSITE") == "www.popular.com.my");
}

TEST_CASE("OCR labels: an accent OCR dropped from a label's word is no edit") {
  const Rules rules = load_rules("builtin:ocr-rules");
  // "Échéance" read with its first accent lost and its second kept: two bytes from the label.
  const auto e =
      extract_fields(page_of({"Redgum Electrical", "FACTURE", "Date: 24/08/2025",
                              "Liam O'Connor        Echéance: 19/09/2025", "Total $11.00"}),
                     rules, kFieldNames);
  CHECK(e.fields.at("DUE_DATE") == "19/09/2025");
  CHECK(e.fields.at("INVOICE_DATE") == "24/08/2025");
}

TEST_CASE("OCR totals: a subtotal under a label no rule lists is found by the page's own sums") {
  const Rules rules = load_rules("builtin:ocr-rules");
  // "Merchandise" is no subtotal's label; its figure is the total less the tax, just above.
  auto r = extract_fields(
      page_of({"Blue Wren Printing Pty Ltd", "Merchandise $250.00", "GST $25.00", "Total $275.00"}),
      rules, kFieldNames);
  CHECK(r.fields.at("SUBTOTAL") == "$250.00");
  CHECK(r.checks["sum"] == true);
  // Not without a tax above nil, not a figure without cents, not one far above the total, not
  // one that is not the total less the tax, and not beside a tax too large to be one (misread).
  for (const auto& lines :
       {std::vector<std::string>{"Blue Wren Printing Pty Ltd", "Merchandise $275.00", "GST $0.00",
                                 "Total $275.00"},
        std::vector<std::string>{"Blue Wren Printing Pty Ltd", "Merchandise 250", "GST $25.00",
                                 "Total $275.00"},
        std::vector<std::string>{"Blue Wren Printing Pty Ltd", "Merchandise $250.00", "",
                                 "Delivery by courier", "Thank you", "Paid by card", "GST $25.00",
                                 "Total $275.00"},
        std::vector<std::string>{"Blue Wren Printing Pty Ltd", "Merchandise $240.00", "GST $25.00",
                                 "Total $275.00"},
        std::vector<std::string>{"Blue Wren Printing Pty Ltd", "Merchandise $75.00", "GST $200.00",
                                 "Total $275.00"}}) {
    CAPTURE(lines[1]);
    r = extract_fields(page_of(lines), rules, kFieldNames);
    CHECK(r.fields.at("TOTAL") == "$275.00");
    CHECK(r.fields.at("SUBTOTAL") == "N/A");
  }
}

TEST_CASE("OCR totals around a rounding line and a payment: what each line can and cannot be") {
  const Rules rules = load_rules("builtin:ocr-rules");
  // The rounding's own amount is never the total, even with nothing else read.
  auto r = extract_fields(
      page_of({"ASIA MART", "Total Sales (Excluding GST)", "Rounding ; 0.02", "CASH :"}), rules,
      kFieldNames);
  CHECK(r.fields.at("TOTAL") == "N/A");
  // ... but a rounding line's larger amount is the rounded total (99 Speed Mart's "Rounding
  // RM 45.35").
  r = extract_fields(
      page_of({"99 SPEED MART S/B", "Rounding Adjustment RM 0.01", "Rounding RM 45.35"}), rules,
      kFieldNames);
  CHECK(r.fields.at("TOTAL") == "RM 45.35");
  // A subtotal's label below the rounding line gives the bill's total: nothing is rounded before
  // tax ("NET TOTAL" on a Malaysian receipt; a net total above the rounding stays the subtotal).
  r = extract_fields(page_of({"B & BEST RESTAURANT", "1 FISHBALL NOODLE 7.00", "GST 6%",
                              "ROUNDING ADJ -0.02", "NET TOTAL 7.40", "CHANGE 0,00"}),
                     rules, kFieldNames);
  CHECK(r.fields.at("TOTAL") == "7.40");
  CHECK(r.fields.at("SUBTOTAL") == "N/A");
  r = extract_fields(page_of({"ACME PTY LTD", "NET TOTAL 100.00", "GST 10.00", "TOTAL 110.00"}),
                     rules, kFieldNames);
  CHECK(r.fields.at("SUBTOTAL") == "100.00");
  CHECK(r.fields.at("TOTAL") == "110.00");
  // A subtotal's amount that was paid (cash 21.20, change 0.00) is the total over an items' sum.
  r = extract_fields(page_of({"C W KHOO HARDWARE SDN BHD", "5 Item(s) Total(MYR): 20.00",
                              "Net Total(MYR): 21.20", "Cash : 21.20", "Change : 0.00"}),
                     rules, kFieldNames);
  CHECK(r.fields.at("TOTAL") == "21.20");
  // Labels: "Amount To Be Paid" and "Amt Due" are totals, "TAX TOTAL" is not.
  const std::vector<std::pair<std::vector<std::string>, std::string>> labelled{
      {{"KEDAI ABC", "Total Sales Inclusive GST: 25.44", "Rounding Adjustment: 0.01",
        "Amount To Be Paid : 25.45"},
       "25.45"},
      {{"KEDAI ABC", "Amt Due 129.30"}, "129.30"},
      {{"SLF CASH & CARRY", "TAX TOTAL: 2.72"}, "N/A"}};
  for (const auto& [lines, total] : labelled) {
    CAPTURE(lines.back());
    const Extraction e = extract_fields(page_of(lines), rules, kFieldNames);
    if (total == "N/A") {
      CHECK_FALSE(e.evidence.at("TOTAL").labelled);  // no label proposed it
    } else {
      CHECK(e.fields.at("TOTAL") == total);
    }
  }
}

TEST_CASE("OCR rules: a zero read in a name's word of letters is an O, a number's zeros stay") {
  const Rules rules = load_rules("builtin:ocr-rules");
  const auto named = [&](const std::string& line) {
    return extract_fields(page_of({"TAX INVOICE", line, "TOTAL: $10.00"}), rules, kFieldNames)
        .fields.at("PAYER_NAME");
  };
  CHECK(named("Customer: Liam 0'Connor") == "Liam O'Connor");
  CHECK(named("Customer: J0RDAN SMITH") == "JORDAN SMITH");
  CHECK(named("Customer: J0rdan Smith") == "Jordan Smith");
  CHECK(named("Customer: Studio 504 Design") == "Studio 504 Design");
  CHECK(named("Customer: A10 Plumbing") == "A10 Plumbing");
}

TEST_CASE("OCR seller: an address line's lead-in label is no part of the address") {
  const Rules rules = load_rules("builtin:ocr-rules");
  const auto e = extract_fields(page_of({"TAX INVOICE", "Harbour Office Supplies",
                                         "Address: 88 Collins Street, Melbourne VIC 3000",
                                         "Phone (02) 1889 4771", "", "TOTAL: $690.44"}),
                                rules, kFieldNames);
  CHECK(e.fields.at("SUPPLIER") == "Harbour Office Supplies");
  CHECK(e.fields.at("BUSINESS_ADDRESS") == "88 Collins Street, Melbourne VIC 3000");
  // A lead-in that is no address label stays: "NO: 28, JALAN ASTANA 1C" is the address.
  const auto m = extract_fields(
      page_of({"KEDAI BUKU SDN BHD", "NO: 28, JALAN ASTANA 1C, 41050 KLANG", "TOTAL: 10.00"}),
      rules, kFieldNames);
  CHECK(m.fields.at("BUSINESS_ADDRESS") == "NO: 28, JALAN ASTANA 1C, 41050 KLANG");
}

TEST_CASE(
    "OCR seller: an address's words misread by a letter are put right, and its seller's numbers "
    "and labelled lines are no part of it") {
  const Rules rules = load_rules("builtin:ocr-rules");
  using docsift::ocr::repair_address;
  // As Tesseract read receipts 248, 265 and 164 of the development set (docs/ocr.md, "Other
  // fields").
  CHECK(repair_address("LOT P.T. 2811, JALAN ANGSA, TAHAN BERKELEY 41150 KLANG, 1237-THN INDAH",
                       rules) ==
        "LOT P.T. 2811, JALAN ANGSA, TAMAN BERKELEY 41150 KLANG, 1237-TMN INDAH");
  CHECK(repair_address("No: G3, BIk G, Jin PJU 1A/3, Ara Damansara", rules) ==
        "No: G3, Blk G, Jln PJU 1A/3, Ara Damansara");
  CHECK(repair_address("Henara Dion, 50250 Kuala Lunpur.", rules) ==
        "Menara Dion, 50250 Kuala Lumpur.");
  // A long word a letter off, whatever the letter (receipts 042, 389 and 242 of the 427).
  CHECK(repair_address("47100 Puchong, Selangot", rules) == "47100 Puchong, Selangor");
  CHECK(repair_address("KAWASAN PERINIDUSTRIAN, SEKSYENM 5, DIARUL EHSAN", rules) ==
        "KAWASAN PERINDUSTRIAN, SEKSYEN 5, DARUL EHSAN");
  // The home country's cities, and an "m" read as strokes or "rn" read as an "m" (the payer's
  // addresses of the generated pages, docs/ocr.md "Other fields").
  CHECK(repair_address("12 George Street, Syiney NSW 2000", rules) ==
        "12 George Street, Sydney NSW 2000");
  CHECK(repair_address("88 Collins Street, Melboume VIC 3000", rules) ==
        "88 Collins Street, Melbourne VIC 3000");
  CHECK(repair_address("Kornpleks Perindustrian", rules) == "Kompleks Perindustrian");
  CHECK(repair_address("12 George Street, Sydnéy NSW 2000", rules) ==
        "12 George Street, Sydney NSW 2000");
  CHECK(repair_address("5 ADÉLAIDE TERRACE, PERTH", rules) == "5 ADELAIDE TERRACE, PERTH");
  CHECK(repair_address("12 Rue de Montréal", rules) == "12 Rue de Montréal");
  // Left as read: words the rules know, letters no OCR takes for each other ("Tan", "Black"), a
  // short word's first or last letter ("Hall"), letters glued to digits ("U13X"), plurals.
  for (const char* same :
       {"12 Jalan Tan Sri, Taman Desa", "4 Black Rd, Hall Street", "2 Centre Streets",
        "SEKSYEN U13X, SHAH ALAM", "United States", "Lot 3, Jalan Pelabur"}) {
    CAPTURE(same);
    CHECK(repair_address(same, rules) == same);
  }
  // On a page: the seller's registration numbers above the address are passed over, and a
  // labelled number under it ends it (receipts 103, 141, 442, 492).
  const auto address = [&](std::vector<std::string> lines) {
    return extract_fields(page_of(lines), rules, kFieldNames).fields.at("BUSINESS_ADDRESS");
  };
  CHECK(address({"POPULAR BOOK CO. (M) SDN BHD", "(Company No. 113825-W)",
                 "(G57 Reg No. 001492992000)", "No 8, Jalan 7/118B, Desa Tun Razak",
                 "56000 Kuala Lumpur, Malaysia", "TOTAL: 10.00"}) ==
        "No 8, Jalan 7/118B, Desa Tun Razak 56000 Kuala Lumpur, Malaysia");
  CHECK(address({"SEGI CASH & CARRY SDN BHD", "(41704i-W)", "PT17920, SEKSYEN U9,",
                 "40150 SHAH ALAM, SELANGOR", "TOTAL: 10.00"}) ==
        "PT17920, SEKSYEN U9, 40150 SHAH ALAM, SELANGOR");
  // A line of place names goes on to the postcode's line past a speck read beside it (receipt 306
  // of the 427).
  CHECK(address({"PASAR RAYA SDN BHD", "LOT 2110, JALAN PERMAS UTARA",
                 "BANDAR BARU PERMAS        .", "81750 JOHOR BAHRU JOHOR", "TOTAL: 10.00"}) ==
        "LOT 2110, JALAN PERMAS UTARA BANDAR BARU PERMAS 81750 JOHOR BAHRU JOHOR");
  for (const char* after : {"INV No # : BWMCO200004 7293", "T: 03-2093 7358 | F: 03-2093 7359",
                            "Co. Reg No. (761834-D)", "(AST ID No :000473792512)"}) {
    CAPTURE(after);
    CHECK(address({"ECO-SHOP MARKETING SDN BHD", "Lot F1-01, 6, Jalan 8/27A,",
                   "53300 Kuala Lumpur, Malaysia.", after, "TOTAL: 10.00"}) ==
          "Lot F1-01, 6, Jalan 8/27A, 53300 Kuala Lumpur, Malaysia.");
  }
  // An address's line that goes on with the seller's phone: its part before the phone's label
  // (receipt 524 of the 427).
  CHECK(address({"MOONLIGHT CAKE HOUSE SDN BHD", "No.1, Jalan Permas 10/5, Bandar Baru Permas Jaya",
                 "81750 Johor Bahru, Johor. Tel No.: 07-387 3322", "TOTAL: 10.00"}) ==
        "No.1, Jalan Permas 10/5, Bandar Baru Permas Jaya 81750 Johor Bahru, Johor.");
  // A line that starts with a street's word and has no number: before the address's first line
  // (receipt 180), after a line that ends with a comma (receipt 160, its "Jin" put right); not a
  // branch's name that holds such a word.
  CHECK(address({"BHPetro Subang Airport", "Jalan Lapangan Terbang Subang", "47200 Subang",
                 "Selangor", "TOTAL: 10.00"}) ==
        "Jalan Lapangan Terbang Subang 47200 Subang Selangor");
  CHECK(address({"Ottogo Enterprise", "SHELL STATION PT15944, Mukim", "Batu,", "Jin Besar Kepong",
                 "TAX INVOICE", "TOTAL: 10.00"}) ==
        "SHELL STATION PT15944, Mukim Batu, Jln Besar Kepong");
  CHECK(address({"DOMINO'S PIZZA SDN BHD", "DOMINO'S PIZZA TAMAN UNIVERSITI",
                 "30, Jln Kebudayaan 7, Tmn Universiti", "81300 Skudai, Johor", "TOTAL: 10.00"}) ==
        "30, Jln Kebudayaan 7, Tmn Universiti 81300 Skudai, Johor");
}

TEST_CASE("OCR seller: a legal name that names its country is a name, an address line is not") {
  const Rules rules = load_rules("builtin:ocr-rules");
  auto r = extract_fields(
      page_of({"AMANO MALAYSIA SDN BHD (682288-V)", "12 JALAN PENGACARA U1/48",
               "TEMASYA INDUSTRIAL PARK", "40150 SHAH ALAM SELANGOR", "TAX INVOICE"}),
      rules, kFieldNames);
  CHECK(r.fields.at("SUPPLIER").rfind("AMANO MALAYSIA SDN BHD", 0) == 0);
  // Without a legal form, a line naming a state is still an address, never the seller.
  r = extract_fields(page_of({"KEDAI RUNCIT ZBH", "SHAH ALAM SELANGOR", "TAX INVOICE"}), rules,
                     kFieldNames);
  CHECK(r.fields.at("SUPPLIER") == "KEDAI RUNCIT ZBH");
}

TEST_CASE(
    "OCR rules on invoices in other languages: sender line, labels in German, French, Czech, US "
    "dates") {
  const Rules rules = load_rules("builtin:ocr-rules");
  auto e = extract_fields(
      page_of({"Kraxi GmbH · Flugzeugallee 17 · 12345 Papierfeld · Deutschland",
               "Papierflieger-Vertriebs-GmbH", "Rabattstr. 25", "", "Rechnung",
               "Rechnungsnummer: 2014-03   Liefer- und Rechnungsdatum: 11. Juli 2014", "",
               "Pos. Artikelbeschreibung Menge Preis Betrag", "1 Superdrachen 2 20,00 40,00", "",
               "Rechnungssumme netto 845,00", "zuzüglich 19% MwSt. 160,55",
               "Rechnungssumme brutto 1.005,55 EUR"}),
      rules, kFieldNames);
  CHECK(e.fields.at("SUPPLIER") == "Kraxi GmbH");
  CHECK(e.fields.at("DOCUMENT_TYPE") == "TAX INVOICE");
  CHECK(e.fields.at("INVOICE_DATE") == "11/07/2014");
  CHECK(e.fields.at("TOTAL") ==
        "€1,005.55");  // not the net sum; the page's currency for bare amounts
  CHECK(e.fields.at("SUBTOTAL") == "€845.00");

  e = extract_fields(
      page_of({"FACTURE N° F20180027", "Date : 31/12/2018", "", "TOTAL HT 100,00 EUR",
               "TOTAL TVA 10,00 EUR", "TOTAL TTC 110,00 EUR"}),
      rules, kFieldNames);
  CHECK(e.fields.at("TOTAL") == "€110.00");
  CHECK(e.fields.at("SUBTOTAL") == "€100.00");
  CHECK(e.checks["sum"] == true);

  e = extract_fields(page_of({"Faktura 20150009", "DODAVATEL          ODBĚRATEL",
                              "Jiná firma s.r.o.          Apple Czech s.r.o.",
                              "Datum vystavení 10. 02. 2015", "Celkem k úhradě 1 210,00 Kč"}),
                     rules, kFieldNames);
  CHECK(e.fields.at("SUPPLIER") == "Jiná firma s.r.o.");  // under its label, left of the buyer's
  CHECK(e.fields.at("TOTAL") == "Kč 1,210.00");
  CHECK(e.fields.at("INVOICE_DATE") == "10/02/2015");

  // US order, decided by the page: 11/15/2019 can only be month first, so 11/03/2019 is 3 November.
  const Page us = page_of(
      {"CONTOSO LTD.", "INVOICE DATE: 11/03/2019", "DUE DATE: 11/15/2019", "TOTAL $110.00"});
  CHECK(extract_fields(us, rules, kFieldNames).fields.at("INVOICE_DATE") == "03/11/2019");
  CHECK(extract_fields(us, rules, kFieldNames, DateOrderRule::Dmy).fields.at("INVOICE_DATE") ==
        "11/03/2019");
  // ... but not by a dotted figure that reads only month first: a price column's "2.13.12" (SROIE
  // receipt 340 of the 427, bench/ocr/README.md) leaves the page day first.
  const Page dotted = page_of({"GARDENIA BAKERIES (KL) SDN BHD", "Date: 06/08/2017",
                               "O.C. WHITE 2.13.12 066 22 25.56", "Total Payable: 68.41"});
  CHECK(extract_fields(dotted, rules, kFieldNames).fields.at("INVOICE_DATE") == "06/08/2017");
}

TEST_CASE("OCR rules: a till's Due, Pay and Change lines give the total due, not what was paid") {
  const Rules rules = load_rules("builtin:ocr-rules");
  // As Tesseract read SROIE receipt 246 of the 427 (bench/ocr/README.md), shortened.
  const auto e = extract_fields(
      page_of({"KING'S CONFECTIONERY S/B 273500-U", "Tax Invoice", "201026 SCONE - M 1 7.50 0 7.50",
               "Qty 1 7.50", "Rounding Adj 0.00", "Due 7.50", "Pay 20.00", "Change 12.50"}),
      rules, kFieldNames);
  CHECK(e.fields.at("TOTAL") == "7.50");
}

TEST_CASE("OCR rules file: errors name the file and the problem") {
  TempDir dir;
  write_text(dir / "bad.yaml",
             "document_types: [{type: RECEIPT, words: [receipt]}]\nfields:\n  GST: {kind: money, "
             "labels: [gst]}\n");
  try {
    load_rules((dir / "bad.yaml").string());
    FAIL("no error");
  } catch (const docsift::ConfigError& e) {
    CHECK(std::string(e.what()).find("bad.yaml: fields.GST: kind 'money'") != std::string::npos);
  }
  CHECK_THROWS_AS(load_rules((dir / "missing.yaml").string()), docsift::ConfigError);
  CHECK_THROWS_AS(load_rules("builtin:nope"), docsift::ConfigError);
}

TEST_CASE(
    "OCR engine on the samples with no model: eval reaches 0.85, the records say which engine") {
  TempDir out;
  const auto r = run_docsift("run " + shell_quote((kSource / "samples").string()) + " --out " +
                             shell_quote(out.path().string()) + " --quiet");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // Each page's latest record: pages whose seller or address another read alike have a second
  // (batch/agreement.h).
  std::vector<nlohmann::json> records;
  for (const auto& [file, rec] : docsift::testing::latest_records(out.path()))
    records.push_back(rec);
  REQUIRE(records.size() == 20);
  for (const auto& rec : records) {
    CHECK(rec["tier"] == "ocr");
    CHECK(rec["engine"]["name"] == "ocr");
    CHECK(rec["engine"]["mean_confidence"].get<double>() > 50);
  }
  CHECK(docsift::testing::read_summary(out.path() / "summary.json")["engine"] == "ocr");
  const auto eval = run_docsift("eval " + shell_quote((out.path() / "predictions.csv").string()) +
                                " " + shell_quote((kSource / "samples/ground_truth.csv").string()) +
                                " --min-accuracy 0.85");
  MESSAGE(eval.out);
  CHECK_MESSAGE(eval.exit_code == 0, eval.err);
}

namespace {

// A record's rows' boxes are on the page as given, as its fields' are: each inside the box of the
// words DESCRIPTIONS was read from (x, y, width, height), not where a turned or halved page had it.
void rows_on_the_page(const nlohmann::json& rec) {
  const auto& list = rec["boxes"]["DESCRIPTIONS"];
  REQUIRE(list.size() == 4);
  REQUIRE(rec["line_items"].size() >= 2);
  const auto inside = [](int from, int size, int outer_from, int outer_size) {
    return from >= outer_from - 4 && from + size <= outer_from + outer_size + 4;
  };
  for (const auto& item : rec["line_items"]) {
    const auto& b = item["box"];
    CAPTURE(b.dump());
    CHECK(inside(b[0], b[2], list[0], list[2]));
    CHECK(inside(b[1], b[3], list[1], list[3]));
  }
}

}  // namespace

TEST_CASE(
    "OCR engine on pages with nothing to read: blank, noise, upside down, recorded with a reason, "
    "never a crash") {
  TempDir dir;
  fs::create_directories(dir / "in");
  write_bmp(dir / "in/blank.bmp", cv::Mat(1100, 850, CV_8UC3, cv::Scalar::all(255)));
  std::mt19937 rng(7);
  cv::Mat noise(600, 800, CV_8UC3);
  auto* p = noise.ptr<std::uint8_t>();
  for (std::size_t i = 0; i < noise.total() * 3; ++i) p[i] = static_cast<std::uint8_t>(rng() % 256);
  write_bmp(dir / "in/photo.bmp", noise);
  cv::Mat upside_down;
  cv::flip(sample_page(), upside_down, -1);  // both axes: turned 180 degrees
  write_bmp(dir / "in/upside_down.bmp", upside_down);

  const auto r = run_docsift("run " + shell_quote((dir / "in").string()) + " --engine ocr --out " +
                             shell_quote((dir / "out").string()) + " --quiet");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::map<std::string, nlohmann::json> by_file;
  for (auto& rec : journal_lines(dir / "out/results.jsonl")) by_file[rec["file"]] = rec;
  REQUIRE(by_file.size() == 3);
  for (const char* name : {"blank.bmp", "photo.bmp"}) {
    CAPTURE(std::string(name));
    const auto& rec = by_file[name];
    CHECK(rec["status"] == "ok");
    for (const auto& [field, value] : rec["fields"].items()) CHECK(value == "N/A");
    CHECK(rec["engine"]["reason"].get<std::string>().size() > 10);
  }
  // Upside down: turned and read.
  const auto& turned = by_file["upside_down.bmp"];
  CHECK(turned["engine"]["prepared"]["turned_180"] == true);
  CHECK(turned["fields"]["TOTAL"] == "$2,480.62");
  CHECK(turned["fields"]["DOCUMENT_TYPE"] == "TAX INVOICE");
  rows_on_the_page(turned);
}

TEST_CASE(
    "OCR engine on faint print in a shadow: a page read without its total is read again, evened "
    "out, with the model asked for") {
  // The first reading's language data, found as Tesseract finds it (ocr/reader.cpp): the folder in
  // TESSDATA_PREFIX (the GPU kit's, bench/gpu/kit.sh), else Debian's tesseract-ocr-eng. The case
  // names it in ocr.evened_model below.
  const char* prefix = std::getenv("TESSDATA_PREFIX");
  const fs::path tessdata = prefix != nullptr && *prefix != '\0'
                                ? fs::path(prefix)
                                : fs::path("/usr/share/tesseract-ocr/5/tessdata");
  // Debian's data is what scripts/setup.sh installs: without TESSDATA_PREFIX its absence is a
  // broken setup, a failure; a TESSDATA_PREFIX without English data (another kit) is a case that
  // cannot run.
  if (prefix == nullptr || *prefix == '\0')
    REQUIRE_MESSAGE(fs::exists(tessdata / "eng.traineddata"), tessdata.string());
  if (!fs::exists(tessdata / "eng.traineddata"))
    DOCSIFT_SKIP("no eng.traineddata in TESSDATA_PREFIX " << tessdata.string());
  TempDir dir;
  fs::create_directories(dir / "in");
  // A sample with its ink at 15% of its darkness, under a shadow that darkens the paper to 40%
  // from left to right: the first reading finds neither the total nor the date.
  cv::Mat faint = sample_page();
  for (int y = 0; y < faint.rows; ++y) {
    auto* row = faint.ptr<std::uint8_t>(y);
    for (int x = 0; x < faint.cols * 3; ++x) {
      const float light =
          1.0f - 0.6f * static_cast<float>(x / 3) / static_cast<float>(faint.cols - 1);
      const float v = (255.0f - (255.0f - row[x]) * 0.15f) * light;
      row[x] = static_cast<std::uint8_t>(std::clamp(std::nearbyint(v), 0.0f, 255.0f));
    }
  }
  write_bmp(dir / "in/faint.bmp", faint);
  const auto run = [&](const std::string& out, const std::string& extra) {
    const auto r =
        run_docsift("run " + shell_quote((dir / "in").string()) + " --engine ocr --out " +
                    shell_quote((dir / out).string()) + " --quiet" + extra);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const auto records = journal_lines(dir / out / "results.jsonl");
    REQUIRE(records.size() == 1);
    return records.front();
  };
  const auto once = run("once", " --set ocr.second_reading=false");
  CHECK(once["fields"]["TOTAL"] == "N/A");
  CHECK(once["fields"]["INVOICE_DATE"] == "N/A");
  CHECK_FALSE(once["engine"].contains("second_reading"));
  const auto twice = run("twice", "");
  CHECK(twice["fields"]["TOTAL"] == "$2,480.62");
  CHECK(twice["fields"]["INVOICE_DATE"] == "03/04/2025");
  const auto& second = twice["engine"]["second_reading"];
  CHECK(second["evened"] == true);
  CHECK(second["mean_confidence"].get<double>() > twice["engine"]["mean_confidence"].get<double>());
  const auto filled = second["filled"].get<std::vector<std::string>>();
  CHECK(std::count(filled.begin(), filled.end(), "TOTAL") == 1);
  // The second reading's language data: a folder named in ocr.evened_model (here the first
  // reading's own model, linked in), none, or a folder without it: one line naming the key and the
  // file.
  fs::create_directories(dir / "data");
  fs::create_symlink(fs::absolute(tessdata / "eng.traineddata"), dir / "data/eng.traineddata");
  const auto named =
      run("named", " --set ocr.evened_model=" + shell_quote((dir / "data").string()));
  CHECK(named["engine"]["second_reading"]["model"] == (dir / "data").string());
  CHECK(named["fields"]["TOTAL"] == "$2,480.62");
  CHECK(named["fields"]["INVOICE_DATE"] == "03/04/2025");
  const auto same = run("same", " --set ocr.evened_model=none");
  CHECK(same["engine"]["second_reading"]["model"] == "same");
  CHECK(same["fields"]["TOTAL"] == "$2,480.62");
  const auto bad =
      run_docsift("run " + shell_quote((dir / "in").string()) + " --engine ocr --out " +
                  shell_quote((dir / "bad").string()) +
                  " --quiet --set ocr.evened_model=" + shell_quote((dir / "in").string()));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("ocr.evened_model") != std::string::npos);
  CHECK(bad.err.find("no eng.traineddata") != std::string::npos);
  CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
}

TEST_CASE(
    "OCR evening out: ink still light after the paper is divided out is stretched to black, dark "
    "ink is not") {
  // A stroke at 76 % of white on white (the 200's receipt 191: its darkest print at 194 of 254,
  // which neither reading of it found). 2 % of the pixels: the page's darkest 1 % is ink.
  cv::Mat faint(200, 300, CV_8U, cv::Scalar(254));
  cv::rectangle(faint, cv::Rect(50, 80, 200, 6), cv::Scalar(194), cv::FILLED);
  const cv::Mat evened = docsift::ocr::even_out(faint);
  CHECK(evened.at<std::uint8_t>(83, 150) < 40);  // ink: black (169 without the stretch)
  CHECK(evened.at<std::uint8_t>(20, 20) > 240);  // paper: white
  // Ink darker than half of white keeps the division and the gamma alone: (100/255)^1.5 of white.
  cv::Mat dark = faint.clone();
  cv::rectangle(dark, cv::Rect(50, 80, 200, 6), cv::Scalar(100), cv::FILLED);
  const double expected = std::pow(100.0 / 255.0, 1.5) * 255.0;
  CHECK(std::abs(docsift::ocr::even_out(dark).at<std::uint8_t>(83, 150) - expected) < 4.0);
}

TEST_CASE(
    "OCR engine on a page of more than 20 megapixels (a 600 dpi scan): read at half size, the "
    "fields as at full size") {
  TempDir dir;
  fs::create_directories(dir / "in");
  // The sample (850 x 1100) enlarged 5 times: 23 megapixels, its text about 5 times Tesseract's
  // best height; halved, 2.5 times.
  cv::Mat large;
  cv::resize(sample_page(), large, cv::Size(), 5, 5, cv::INTER_NEAREST);  // each pixel 5 x 5
  write_bmp(dir / "in/large.bmp", large);
  const auto r = run_docsift("run " + shell_quote((dir / "in").string()) + " --engine ocr --out " +
                             shell_quote((dir / "out").string()) + " --quiet");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto records = journal_lines(dir / "out/results.jsonl");
  REQUIRE(records.size() == 1);
  const auto& rec = records.front();
  CHECK(rec["image"]["width"] == 4250);
  CHECK(rec["engine"]["prepared"]["scale"] == 0.5);
  CHECK(rec["fields"]["TOTAL"] == "$2,480.62");
  CHECK(rec["fields"]["INVOICE_DATE"] == "03/04/2025");
  rows_on_the_page(rec);
}

TEST_CASE(
    "OCR second reading: which pages are read again, and which reading each field is taken from") {
  // The rules' confidence per field: the mean of the words of the piece of line it was read from.
  Page page =
      page_of({"KEDAI RUNCIT MAJU", "Date: 06/04/2018 10:12", "", "Cash 20.00", "TOTAL 12.30"});
  for (auto& line : page.lines)
    for (auto& word : line.words)
      if (word.text == "12.30") word.confidence = 20.0f;  // "TOTAL 12.30": (95 + 20) / 2
  const Extraction e = extract_fields(page, load_rules("builtin:ocr-rules"), kFieldNames);
  REQUIRE(e.fields.at("TOTAL") == "12.30");
  CHECK(e.confidence.at("TOTAL") == doctest::Approx(57.5));
  CHECK(e.confidence.at("INVOICE_DATE") == doctest::Approx(95.0));
  CHECK_FALSE(e.confidence.count("ABN"));  // not found

  const auto result = [](std::map<std::string, std::string> fields,
                         std::map<std::string, double> confidence) {
    Engine::Result r;
    r.fields = std::move(fields);
    r.confidence = std::move(confidence);
    return r;
  };
  // Read again: a total or a date N/A, or read from words under kDoubtful; a statement only for its
  // own keys.
  CHECK_FALSE(wants_second_reading(result({{"TOTAL", "9.90"}, {"INVOICE_DATE", "28/12/2017"}},
                                          {{"TOTAL", kDoubtful}, {"INVOICE_DATE", 90}})));
  CHECK(wants_second_reading(
      result({{"TOTAL", "N/A"}, {"INVOICE_DATE", "28/12/2017"}}, {{"INVOICE_DATE", 90}})));
  CHECK(wants_second_reading(result({{"TOTAL", "9.90"}, {"INVOICE_DATE", "28/12/2017"}},
                                    {{"TOTAL", 90}, {"INVOICE_DATE", kDoubtful - 1}})));
  CHECK_FALSE(wants_second_reading(result({{"DOCUMENT_TYPE", "BANK STATEMENT"},
                                           {"TOTAL", "N/A"},
                                           {"STATEMENT_PERIOD", "01/03/2025 - 31/03/2025"},
                                           {"CLOSING_BALANCE", "$10.00"}},
                                          {{"STATEMENT_PERIOD", 90}, {"CLOSING_BALANCE", 90}})));
  CHECK(wants_second_reading(
      result({{"DOCUMENT_TYPE", "BANK STATEMENT"}, {"STATEMENT_PERIOD", "N/A"}}, {})));
  // The seller's name, doubted under kDoubtfulName, or N/A.
  const auto seller = [&](const std::string& name, double sure) {
    return wants_second_reading(
        result({{"TOTAL", "9.90"}, {"INVOICE_DATE", "28/12/2017"}, {"SUPPLIER", name}},
               {{"TOTAL", 90}, {"INVOICE_DATE", 90}, {"SUPPLIER", sure}}));
  };
  CHECK_FALSE(seller("SANYU STATIONERY SHOP", kDoubtfulName));
  CHECK(seller("SANYU STAT!", kDoubtfulName - 1));
  CHECK(wants_second_reading(
      result({{"TOTAL", "9.90"}, {"INVOICE_DATE", "28/12/2017"}, {"SUPPLIER", "N/A"}},
             {{"TOTAL", 90}, {"INVOICE_DATE", 90}})));

  // Taken: what the first left N/A; what both read differently, from the more confident; the
  // first's value where the second is less sure, or read nothing, or read the same.
  Engine::Result first = result({{"TOTAL", "83.95"},
                                 {"INVOICE_DATE", "N/A"},
                                 {"SUPPLIER", "SANYU STATIONERY"},
                                 {"GST", "5.04"},
                                 {"ABN", "N/A"}},
                                {{"TOTAL", 30}, {"SUPPLIER", 90}, {"GST", 80}});
  const Engine::Result second = result({{"TOTAL", "88.95"},
                                        {"INVOICE_DATE", "15/03/2018"},
                                        {"SUPPLIER", "SANYO STATIONERY"},
                                        {"GST", "N/A"},
                                        {"ABN", "N/A"}},
                                       {{"TOTAL", 70}, {"INVOICE_DATE", 60}, {"SUPPLIER", 85}});
  Engine::Result merged = first;
  const Taken taken = take_second_reading(merged, second, false);
  CHECK(merged.fields["TOTAL"] == "88.95");
  CHECK(merged.confidence["TOTAL"] == 70);
  CHECK(merged.fields["INVOICE_DATE"] == "15/03/2018");
  CHECK(merged.fields["SUPPLIER"] == "SANYU STATIONERY");
  CHECK(merged.fields["GST"] == "5.04");
  CHECK(merged.fields["ABN"] == "N/A");
  CHECK(taken.filled == std::vector<std::string>{"INVOICE_DATE"});
  CHECK(taken.surer == std::vector<std::string>{"TOTAL"});
  // A far clearer second reading is taken wherever it read a field.
  Engine::Result clear = first;
  const Taken all = take_second_reading(clear, second, true);
  CHECK(clear.fields["SUPPLIER"] == "SANYO STATIONERY");
  CHECK(clear.fields["GST"] == "5.04");
  CHECK(all.surer == std::vector<std::string>{"SUPPLIER", "TOTAL"});
  // Values the first reading's own checks vouch for are kept over a surer, even a clearer, second
  // reading they do not vouch for: a statement whose rows take its opening balance to its closing
  // one (FieldFinder::balance_check; a generated statement: "$5,269.98" read evened out for
  // $5,209.98). Where the second's checks vouch for its reading too, or the first's do not, the
  // surer reading is taken; a total whose sums agree is held by its confidence, not by this.
  Engine::Result statement = result({{"OPENING_BALANCE", "$5,209.98"},
                                     {"CLOSING_BALANCE", "$7,641.63"},
                                     {"DESCRIPTIONS", "Woolworths | Fuel"},
                                     {"TOTAL", "9.45"}},
                                    {{"OPENING_BALANCE", 80}, {"CLOSING_BALANCE", 80}});
  for (const char* tied : {"OPENING_BALANCE", "CLOSING_BALANCE", "DESCRIPTIONS"})
    statement.evidence[tied].vouched = true;
  statement.evidence["TOTAL"].sums_agree = true;
  Engine::Result evened = result({{"OPENING_BALANCE", "$5,269.98"},
                                  {"CLOSING_BALANCE", "$7,641.63"},
                                  {"DESCRIPTIONS", "Woolworths | Fuel | Coles"},
                                  {"TOTAL", "9.46"}},
                                 {{"OPENING_BALANCE", 95}, {"CLOSING_BALANCE", 95}});
  Engine::Result kept = statement;
  CHECK(take_second_reading(kept, evened, true).surer == std::vector<std::string>{"TOTAL"});
  CHECK(kept.fields["OPENING_BALANCE"] == "$5,209.98");
  CHECK(kept.fields["DESCRIPTIONS"] == "Woolworths | Fuel");
  CHECK(kept.fields["TOTAL"] == "9.46");
  evened.evidence["OPENING_BALANCE"].vouched = true;
  kept = statement;
  CHECK(take_second_reading(kept, evened, true).surer ==
        std::vector<std::string>{"OPENING_BALANCE", "TOTAL"});
  CHECK(kept.fields["OPENING_BALANCE"] == "$5,269.98");
  for (const char* tied : {"OPENING_BALANCE", "CLOSING_BALANCE", "DESCRIPTIONS"})
    statement.evidence[tied] = {};
  CHECK(take_second_reading(statement, evened, false).surer ==
        std::vector<std::string>{"OPENING_BALANCE"});
  CHECK(statement.fields["OPENING_BALANCE"] == "$5,269.98");

  // A receipt's rows that neither add up nor each check (rows_unchecked) give way to a second
  // reading's that do, however sure the first's: the rows and their checks come with
  // DESCRIPTIONS, and a list both read alike takes the second's evidence, not the first's doubt.
  Engine::Result unchecked =
      result({{"DESCRIPTIONS", "MILO | BRAD"}, {"QUANTITIES", "1 | 2"}, {"PRICES", "3.50 | 9.00"}},
             {{"DESCRIPTIONS", 90}, {"QUANTITIES", 90}, {"PRICES", 90}});
  unchecked.info["checks"] = {{"rows_unchecked", true}};
  unchecked.items.resize(2);
  for (const char* list : {"DESCRIPTIONS", "QUANTITIES", "PRICES"})
    unchecked.evidence[list].contradicted = true;
  Engine::Result checked =
      result({{"DESCRIPTIONS", "MILO | BREAD"}, {"QUANTITIES", "1 | 2"}, {"PRICES", "3.50 | 4.50"}},
             {{"DESCRIPTIONS", 60}, {"QUANTITIES", 70}, {"PRICES", 60}});
  checked.items.resize(2);
  checked.items[1].description = "BREAD";
  for (const char* list : {"DESCRIPTIONS", "QUANTITIES", "PRICES"}) checked.evidence[list] = {};
  Engine::Result given = unchecked;
  CHECK(take_second_reading(given, checked, false).surer ==
        std::vector<std::string>{"DESCRIPTIONS", "PRICES"});
  CHECK(given.items[1].description == "BREAD");
  CHECK_FALSE(rows_unchecked(given));
  CHECK_FALSE(given.evidence["QUANTITIES"].contradicted);
  CHECK_FALSE(given.evidence["QUANTITIES"].second_taken);
  CHECK(given.evidence["QUANTITIES"].second_agreed);
  CHECK(given.confidence["QUANTITIES"] == 70);
  // Where the second reading's rows do not check either, the surer first reading stays, and so
  // does its doubt.
  checked.info["checks"] = {{"rows_unchecked", true}};
  given = unchecked;
  CHECK(take_second_reading(given, checked, false).surer.empty());
  CHECK(given.fields["DESCRIPTIONS"] == "MILO | BRAD");
  CHECK(rows_unchecked(given));
  CHECK(given.evidence["QUANTITIES"].contradicted);
  CHECK(given.confidence["QUANTITIES"] == 90);

  // Nor to a second reading that read no rows: the rows read right beside the misread one stay.
  const Engine::Result none =
      result({{"DESCRIPTIONS", "N/A"}, {"QUANTITIES", "N/A"}, {"PRICES", "N/A"}}, {});
  given = unchecked;
  CHECK(take_second_reading(given, none, false).surer.empty());
  CHECK(given.fields["DESCRIPTIONS"] == "MILO | BRAD");
  CHECK(given.items.size() == 2);

  // A table is one reading's, and the first list the readings read apart decides whose.
  // DESCRIPTIONS the first read surer keep its rows, and with them its PRICES, however surer the
  // second's: the rows and the lists say the same.
  Engine::Result table =
      result({{"DESCRIPTIONS", "MILO | BREAD"}, {"QUANTITIES", "1 | 2"}, {"PRICES", "3.50 | 4.60"}},
             {{"DESCRIPTIONS", 90}, {"QUANTITIES", 90}, {"PRICES", 40}});
  table.items.resize(2);
  Engine::Result other =
      result({{"DESCRIPTIONS", "MIL0 | BREAD"}, {"QUANTITIES", "N/A"}, {"PRICES", "3.50 | 4.50"}},
             {{"DESCRIPTIONS", 60}, {"PRICES", 95}});
  other.items.resize(3);
  CHECK(take_second_reading(table, other, false).surer.empty());
  CHECK(table.fields["PRICES"] == "3.50 | 4.60");
  CHECK(table.items.size() == 2);
  // Read alike, the descriptions leave it to the prices, and the whole table comes: a list the
  // second reading read none of is N/A, with that reading's evidence of its absence.
  other.fields["DESCRIPTIONS"] = "MILO | BREAD";
  other.absent["QUANTITIES"].word_mean = 12;
  const Taken whole = take_second_reading(table, other, false);
  CHECK(whole.surer == std::vector<std::string>{"PRICES"});
  CHECK(whole.emptied == std::vector<std::string>{"QUANTITIES"});
  CHECK(table.fields["PRICES"] == "3.50 | 4.50");
  CHECK(table.fields["QUANTITIES"] == "N/A");
  CHECK_FALSE(table.confidence.count("QUANTITIES"));
  CHECK(table.absent.at("QUANTITIES").word_mean == 12);
  CHECK(table.items.size() == 3);
}

TEST_CASE("OCR readings: a value passes from one reading to another whole, stale parts dropped") {
  Engine::Result into, from;
  into.fields["TOTAL"] = "12.00";
  into.confidence["TOTAL"] = 0.4;
  into.evidence["TOTAL"].word_mean = 40;
  into.absent["TOTAL"].word_mean = 5;  // left from an N/A before
  from.fields["TOTAL"] = "12.50";
  from.evidence["TOTAL"].word_mean = 90;  // no confidence: the reading gave none
  put_reading(into, from, "TOTAL", &Evidence::reader_taken, true);
  CHECK(into.fields["TOTAL"] == "12.50");
  CHECK_FALSE(into.confidence.count("TOTAL"));  // not the other value's 0.4
  CHECK(into.evidence["TOTAL"].word_mean == 90);
  CHECK(into.evidence["TOTAL"].reader_taken);
  CHECK_FALSE(into.evidence["TOTAL"].second_taken);
  CHECK_FALSE(into.absent.count("TOTAL"));
  // A field the reading has none of passes as N/A, with its evidence of absence.
  from.absent["ABN"].word_mean = 7;
  into.fields["ABN"] = "51 824 753 556";
  into.confidence["ABN"] = 0.9;
  put_reading(into, from, "ABN", &Evidence::second_taken, true);
  CHECK(into.fields["ABN"] == "N/A");
  CHECK_FALSE(into.confidence.count("ABN"));
  CHECK(into.absent["ABN"].word_mean == 7);
}

TEST_CASE(
    "OCR engine on PDFs: a born-digital page is read from its text layer with no OCR, a scanned "
    "one by OCR") {
  TempDir dir;
  fs::create_directories(dir / "in");
  write_text_pdf(
      dir / "in/rechnung.pdf",
      {"Kraxi GmbH - Flugzeugallee 17 - 12345 Papierfeld", "Papierflieger-Vertriebs-GmbH",
       "Rechnung", "Rechnungsnummer: 2014-03", "Rechnungsdatum: 11. Juli 2014",
       "Superdrachen 2 20,00 40,00", "Rechnungssumme netto 845,00", "zuzueglich 19% MwSt. 160,55",
       "Rechnungssumme brutto 1.005,55 EUR"});
  fs::copy_file(kSource / "tests/fixtures/pages/one_page.pdf",
                dir / "in/scanned.pdf");  // an image in a PDF
  const auto r = run_docsift("run " + shell_quote((dir / "in").string()) + " --out " +
                             shell_quote((dir / "out").string()) + " --quiet");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.find("Error in") == std::string::npos);  // no Leptonica or Poppler chatter
  std::map<std::string, nlohmann::json> by_file;
  for (auto& rec : journal_lines(dir / "out/results.jsonl")) by_file[rec["file"]] = rec;
  REQUIRE(by_file.size() == 2);
  const auto& text = by_file["rechnung.pdf"];
  CHECK(text["text_source"] == "pdf");
  CHECK_FALSE(text["engine"].contains("tesseract"));  // Tesseract was not asked
  CHECK_FALSE(text["timings_s"].contains("ocr"));
  CHECK(text["fields"]["SUPPLIER"] == "Kraxi GmbH");
  CHECK(text["fields"]["INVOICE_DATE"] == "11/07/2014");
  CHECK(text["fields"]["TOTAL"] == "€1,005.55");
  const auto& scanned = by_file["scanned.pdf"];
  CHECK(scanned["text_source"] == "ocr");
  CHECK(scanned["engine"].contains("tesseract"));
  const auto truth = docsift::testing::read_ground_truth(kSource / "samples/ground_truth.csv");
  CHECK(scanned["fields"]["TOTAL"] == truth.at("synthetic_invoice_005.png").at("TOTAL"));

  // ocr.pdf_text: false renders and reads the born-digital page too.
  const auto again =
      run_docsift("run " + shell_quote((dir / "in").string()) + " --out " +
                  shell_quote((dir / "out2").string()) + " --quiet --set ocr.pdf_text=false");
  REQUIRE_MESSAGE(again.exit_code == 0, again.err);
  for (auto& rec : journal_lines(dir / "out2/results.jsonl")) CHECK(rec["text_source"] == "ocr");

  // A text layer that is not text (too few words, glyph ids) is not trusted.
  CHECK_FALSE(docsift::ocr::usable_text_layer({{"Total", {}, 100}, {"12.00", {}, 100}}));
  std::vector<Word> glyphs(
      20, Word{"\xee\x80\x81\xee\x80\x82\xee\x80\x83", {}, 100});  // private-use code points
  CHECK_FALSE(docsift::ocr::usable_text_layer(glyphs));
  std::vector<Word> words(6, Word{"Invoice", {}, 100});
  CHECK(docsift::ocr::usable_text_layer(words));
}

TEST_CASE(
    "Decoder messages never reach stderr: a truncated JPEG and PNG are read or failed, with the "
    "decoder's words in the record") {
  TempDir dir;
  fs::create_directories(dir / "in");
  const std::string jpeg = file_bytes(kSource / "tests/fixtures/images/exif_rotated.jpg");
  const std::string png = file_bytes(kSource / "samples/synthetic_invoice_001.png");
  REQUIRE(jpeg.size() > 300);
  std::ofstream(dir / "in/cut.jpg", std::ios::binary) << jpeg.substr(0, jpeg.size() * 6 / 10);
  std::ofstream(dir / "in/cut.png", std::ios::binary) << png.substr(0, 3000);
  const auto r = run_docsift("run " + shell_quote((dir / "in").string()) + " --engine ocr --out " +
                             shell_quote((dir / "out").string()) + " --quiet");
  CHECK(r.exit_code == 1);  // one page failed
  // Every stderr line is docsift's own; the decoder's words reach it only inside the failed page's
  // line, which names the file.
  std::istringstream lines(r.err);
  for (std::string line; std::getline(lines, line);) {
    CAPTURE(line);
    const std::string body = docsift::testing::log_body(line);
    CHECK(body.starts_with("docsift: "));
    for (const char* leak : {"libpng", "JPEG", "Error in", "Warning"}) {
      if (line.find(leak) != std::string::npos) CHECK(body.starts_with("docsift: error: cut."));
    }
  }
  std::map<std::string, nlohmann::json> by_file;
  for (auto& rec : journal_lines(dir / "out/results.jsonl")) by_file[rec["file"]] = rec;
  REQUIRE(by_file.size() == 2);
  CHECK(by_file["cut.png"]["status"] == "failed");
  CHECK(by_file["cut.png"]["error"].get<std::string>().find("the decoder said: libpng error") !=
        std::string::npos);
}

TEST_CASE(
    "OCR evidence per field: the value's words, its label, the sums, repairs and the competition") {
  const Rules rules = load_rules("builtin:ocr-rules");
  Page page = page_of({"KEDAI RUNCIT MAJU SDN BHD", "Date: 06/04/2018 10:12", "",
                       "T0TAL 2 items 12.30", "Cash 20.00", "Change 7.70"});
  for (auto& line : page.lines)
    for (auto& word : line.words)
      if (word.text == "12.30") word.confidence = 40.0f;
  const Extraction e = extract_fields(page, rules, kFieldNames);
  REQUIRE(e.fields.at("TOTAL") == "12.30");
  const Evidence& total = e.evidence.at("TOTAL");
  // The value's own words: "12.30", not the label or the "2" of "2 items".
  CHECK(total.word_min == doctest::Approx(40.0));
  CHECK(total.word_mean == doctest::Approx(40.0));
  CHECK(total.box.left == 140);  // page_of: 10 px per character, "T0TAL 2 items " before it
  CHECK(total.box.right == 190);
  CHECK(total.box.top == 90);
  CHECK(total.labelled);
  CHECK(total.label_fuzzy);  // "T0TAL"
  CHECK(total.sums_agree);   // cash 20.00 - change 7.70
  CHECK_FALSE(total.repaired);
  CHECK_FALSE(total.exact);
  const Evidence& date = e.evidence.at("INVOICE_DATE");
  CHECK(date.labelled);
  CHECK_FALSE(date.label_fuzzy);
  CHECK_FALSE(date.repaired);
  CHECK(date.word_min == doctest::Approx(95.0));
  CHECK_FALSE(e.evidence.count("ABN"));  // not found

  // A repaired total (446.jpg: 119.76 read for 119.70 against cash 120.06 - change 0.36).
  auto r = extract_fields(page_of({"MR. D.I.Y. (KUCHAI) SDN BHD", "Total Incl. GST 6% RM 119.76",
                                   "CASH RM 120.06", "CHANGE RM 0.36"}),
                          rules, kFieldNames);
  CHECK(r.evidence.at("TOTAL").repaired);
  CHECK(r.evidence.at("TOTAL").sums_agree);
  // Two totals compete: the grand total wins over the plain one by its label's strength.
  r = extract_fields(page_of({"RESTORAN DE COFFEE", "Total 10.00", "Grand Total 11.80"}), rules,
                     kFieldNames);
  REQUIRE(r.fields.at("TOTAL") == "11.80");
  CHECK(r.evidence.at("TOTAL").candidates == 2);
  CHECK(r.evidence.at("TOTAL").margin > 0);
  CHECK_FALSE(r.evidence.at("TOTAL").sums_agree);
  // A date with no label, by its position beside a time; a date whose year was misread ("2078").
  r = extract_fields(page_of({"RESTORAN DE COFFEE", "06/04/2078 10:12", "TOTAL 11.80"}), rules,
                     kFieldNames);
  REQUIRE(r.fields.at("INVOICE_DATE") == "06/04/2018");
  CHECK_FALSE(r.evidence.at("INVOICE_DATE").labelled);
  CHECK(r.evidence.at("INVOICE_DATE").repaired);
  // ... but where the page prints the same day and month again with a year read as printed, that
  // year (SROIE receipt 373 of the 427: "2604" is 2017 misread twice, not 2004).
  r = extract_fields(page_of({"GARDENIA BAKERIES (KL) SDN BHD", "VEG Date: 08/10/2604",
                              "DD: 08/10/2017) 12th", "Total Payable: 68.41"}),
                     rules, kFieldNames);
  CHECK(r.fields.at("INVOICE_DATE") == "08/10/2017");
  CHECK(r.checks.value("date_from_twin", false));
  CHECK_FALSE(r.evidence.at("INVOICE_DATE").repaired);
  r = extract_fields(page_of({"VEG Date: 08/10/2604", "DD: 09/10/2017", "Total 68.41"}), rules,
                     kFieldNames);
  CHECK(r.fields.at("INVOICE_DATE") == "08/10/2004");  // no twin: the repair stands
  // A seller's name with a trade word repaired; a PDF's text layer is exact.
  Page exact = page_of({"AIK HUAT HARDUARE SDN BHD", "TOTAL 11.80"});
  exact.exact = true;
  r = extract_fields(exact, rules, kFieldNames);
  REQUIRE(r.fields.at("SUPPLIER") == "AIK HUAT HARDWARE SDN BHD");
  CHECK(r.evidence.at("SUPPLIER").repaired);
  CHECK_FALSE(r.evidence.at("SUPPLIER").labelled);
  CHECK(r.evidence.at("TOTAL").exact);
}

TEST_CASE(
    "OCR calibration: the shipped parameters load, a kind's logistic model is evaluated as "
    "written, errors name the file") {
  const Calibration shipped = load_calibration("builtin:ocr-calibration");
  for (const char* kind : {"amount", "date", "text", "id", "list"})
    CHECK(shipped.kinds.count(kind));
  CHECK(shipped.field_kinds.at("TOTAL") == "amount");
  CHECK(shipped.field_kinds.at("INVOICE_DATE") == "date");
  CHECK(shipped.field_kinds.at("SUPPLIER") == "text");
  Evidence sure;
  sure.word_min = sure.word_mean = 96;
  sure.labelled = sure.sums_agree = true;
  Evidence doubtful;
  doubtful.word_min = 20;
  doubtful.word_mean = 45;
  doubtful.candidates = 3;
  const double p_sure = shipped.probability("TOTAL", sure),
               p_doubtful = shipped.probability("TOTAL", doubtful);
  CHECK(p_sure > 0);
  CHECK(p_sure <= 1);
  CHECK(p_doubtful < p_sure);  // the evidence moves it the way it should

  TempDir dir;
  write_text(
      dir.path() / "c.yaml",
      "kinds:\n  text: {intercept: -1.5, weights: {word_mean: 2.0, labelled: 0.5}}\n"
      "  amount: {intercept: 0.25, weights: {sums_agree: 1.0, repaired: -0.75, margin: 0.5}}\n"
      "fields: {TOTAL: amount}\n");
  const Calibration mine = load_calibration((dir.path() / "c.yaml").string());
  Evidence e;
  e.word_mean = 80;
  e.labelled = true;
  // p = 1 / (1 + exp(-(-1.5 + 2.0 * 0.8 + 0.5 * 1)))
  CHECK(mine.probability("SUPPLIER", e) ==
        doctest::Approx(1.0 / (1.0 + std::exp(-0.6))));  // not listed: text
  e.sums_agree = e.repaired = true;
  e.margin = 1000;  // log-scaled to 1
  CHECK(mine.probability("TOTAL", e) ==
        doctest::Approx(1.0 / (1.0 + std::exp(-(0.25 + 1.0 - 0.75 + 0.5)))));
  CHECK(feature_values(e).at("margin") == doctest::Approx(1.0));

  // A kind's model of the values the second recognizer read: theirs alone, with no field's shift;
  // the kind's own (and the shift) for the values it did not read.
  write_text(dir.path() / "r.yaml",
             "kinds:\n  text: {intercept: -1.5, weights: {word_mean: 2.0}, read_again: {intercept: "
             "0.5, weights: {legal: 1.5, reader_agreed: 1.0}}}\n"
             "fields: {SUPPLIER: {kind: text, offset: -0.25}}\n");
  const Calibration again = load_calibration((dir.path() / "r.yaml").string());
  Evidence name;
  name.word_mean = 80;
  name.legal = true;
  CHECK(again.probability("SUPPLIER", name) ==
        doctest::Approx(1.0 / (1.0 + std::exp(-(-1.5 - 0.25 + 1.6)))));
  name.reader_read = name.reader_agreed = true;
  CHECK(again.probability("SUPPLIER", name) ==
        doctest::Approx(1.0 / (1.0 + std::exp(-(0.5 + 1.5 + 1.0)))));
  REQUIRE(shipped.read_again.count("text"));  // the seller's name, read again (docs/confidence.md)
  CHECK_FALSE(shipped.read_again.count("amount"));

  const auto problem = [&](const std::string& yaml) {
    return load_error(dir.path() / "bad.yaml", yaml, load_calibration);
  };
  CHECK(problem("kinds:\n  text: {intercept: 0, weights: {shoe_size: 1}}\n")
            .find("unknown feature 'shoe_size'") != std::string::npos);
  CHECK(problem("kinds:\n  text: {intercept: 0, weights: {}}\nfields: {TOTAL: amount}\n")
            .find("fields.TOTAL") != std::string::npos);
  CHECK(problem("kinds:\n  amount: {intercept: 0, weights: {}}\n").find("needs text") !=
        std::string::npos);
  CHECK(problem("[1, 2]\n").find("bad.yaml") != std::string::npos);
  CHECK(problem("kinds:\n  text: {intercept: 0, weights: {}, read_again: {intercept: 0, weights: "
                "{size: 1}}}\n")
            .find("kinds.text.read_again.weights: unknown feature 'size'") != std::string::npos);
  CHECK(problem("kinds:\n  text: {intercept: 0, weights: {}, read_again: {intercept: 0, weights: "
                "{}, read_again: {}}}\n")
            .find("read_again") != std::string::npos);  // one level only
  CHECK_THROWS_AS(load_calibration((dir.path() / "none.yaml").string()), docsift::ConfigError);

  // A required field's N/A: the `absent` model gives the probability that the page prints none;
  // a field without one gives none. The shipped ABN model trusts a page that shows no ABN at all
  // more than one that prints its label.
  write_text(dir.path() / "a.yaml",
             "kinds:\n  text: {intercept: 0, weights: {}}\n"
             "absent:\n  ABN: {intercept: 2.0, weights: {label_seen: -3.0, shape_seen: -1.0}}\n");
  const Calibration absent = load_calibration((dir.path() / "a.yaml").string());
  Evidence shows;
  shows.label_seen = true;
  CHECK(feature_values(shows).at("label_seen") == 1.0);
  CHECK(feature_values(shows).at("abroad") == 0.0);
  CHECK(*absent.absent_probability("ABN", Evidence{}) ==
        doctest::Approx(1.0 / (1.0 + std::exp(-2.0))));
  CHECK(*absent.absent_probability("ABN", shows) == doctest::Approx(1.0 / (1.0 + std::exp(1.0))));
  CHECK_FALSE(absent.absent_probability("TOTAL", Evidence{}));
  REQUIRE(shipped.absent_probability("ABN", shows));
  Evidence abroad;
  abroad.abroad = true;
  CHECK(*shipped.absent_probability("ABN", abroad) > *shipped.absent_probability("ABN", shows));
  CHECK(problem("kinds:\n  text: {intercept: 0, weights: {}}\nabsent:\n  ABN: {intercept: 0, "
                "weights: {size: 1}}\n")
            .find("absent.ABN.weights: unknown feature 'size'") != std::string::npos);
  CHECK_THROWS_WITH_AS(absent.check_fields({"TOTAL"}),
                       doctest::Contains("absent.ABN: not a field of the schema"),
                       docsift::ConfigError);
}

TEST_CASE(
    "OCR field finder: the shipped weights load, a candidate scores as written, errors name the "
    "file") {
  const FinderModel shipped = load_finder("builtin:ocr-finder");
  REQUIRE(shipped.weights.count("TOTAL"));
  TempDir dir;
  write_text(dir.path() / "f.yaml",
             "fields:\n  TOTAL:\n    weights: {largest_printed: 2.0, label_plain: 1.0, unlabelled: "
             "-0.5}\n");
  const FinderModel mine = load_finder((dir.path() / "f.yaml").string());
  const Features a{{"largest_printed", 1.0},
                   {"label_plain", 1.0},
                   {"down", 0.7}};  // down: not weighed, counts 0
  const Features b{{"unlabelled", 1.0}};
  CHECK(mine.score("TOTAL", a) == doctest::Approx(3.0));
  CHECK(mine.score("TOTAL", b) == doctest::Approx(-0.5));
  const std::vector<double> p = mine.probabilities("TOTAL", {a, b});
  const double sum = std::exp(3.0) + std::exp(-0.5);
  CHECK(p[0] == doctest::Approx(std::exp(3.0) / sum));
  CHECK(p[1] == doctest::Approx(std::exp(-0.5) / sum));

  const auto problem = [&](const std::string& yaml) {
    return load_error(dir.path() / "bad.yaml", yaml, load_finder);
  };
  CHECK(problem("fields:\n  TOTAL:\n    weights: {shoe_size: 1}\n")
            .find("bad.yaml:3:26: fields.TOTAL.weights: unknown feature 'shoe_size'") !=
        std::string::npos);
  CHECK(problem("fields:\n  TOTAL: {weights: {}}\n  SUPPLIER: {weights: {}}\n")
            .find("fields.SUPPLIER: not a field the finder ranks") != std::string::npos);
  CHECK(problem("fields: {}\n").find("has no TOTAL") != std::string::npos);
  CHECK(problem("fields:\n  TOTAL: {weights: {cents: .nan}}\n").find("expected a finite number") !=
        std::string::npos);
  CHECK(problem("fields:\n  TOTAL: {weights: {}}\nkinds: {}\n")
            .find("kinds: unknown key (fields is)") != std::string::npos);
  CHECK_THROWS_AS(load_finder((dir.path() / "none.yaml").string()), docsift::ConfigError);
  CHECK_THROWS_AS(load_finder("builtin:nothing"), docsift::ConfigError);
}

TEST_CASE(
    "OCR field finder: its weights choose TOTAL among the page's candidates, every feature one "
    "finder_features names") {
  const Page page =
      page_of({"TAX INVOICE", "", "Coffee beans      12.00", "Milk jug          23.50", "",
               "TOTAL             35.50", "CASH              50.00", "CHANGE            14.50"});
  Rules rules = load_rules("builtin:ocr-rules");
  const Extraction shipped = extract_fields(page, rules, {"TOTAL"});
  CHECK(shipped.fields.at("TOTAL") == "35.50");
  const auto& names = finder_features().at("TOTAL");
  REQUIRE(shipped.candidates.count("TOTAL"));
  std::set<std::string> values;
  for (const Ranked& c : shipped.candidates.at("TOTAL")) {
    values.insert(c.value);
    CHECK(c.features.size() == names.size());
    for (const auto& [name, x] : c.features)
      CHECK_MESSAGE(std::count(names.begin(), names.end(), name) == 1, name);
  }
  // The labelled total, what was paid (50.00 − 14.50) and the items' amounts; not the payment
  // lines' own figures.
  CHECK(values == std::set<std::string>{"12.00", "23.50", "35.50"});
  double sum = 0;
  for (const Ranked& c : shipped.candidates.at("TOTAL")) sum += c.probability;
  CHECK(sum == doctest::Approx(1.0));
  // The weights decide: an unlabelled amount wins when that is what they favour, the larger one
  // when the rank counts too.
  rules.finder.weights["TOTAL"] = {{"unlabelled", 4.0}};
  CHECK(extract_fields(page, rules, {"TOTAL"}).fields.at("TOTAL") == "12.00");
  rules.finder.weights["TOTAL"] = {{"unlabelled", 4.0}, {"amount_rank", 1.0}};
  CHECK(extract_fields(page, rules, {"TOTAL"}).fields.at("TOTAL") == "23.50");
}

TEST_CASE(
    "OCR second reading marks each field's evidence: agreed, taken from the second, or kept "
    "against it") {
  Engine::Result first, second;
  first.fields = {{"TOTAL", "83.95"}, {"INVOICE_DATE", "N/A"}, {"SUPPLIER", "SANYU STATIONERY"}};
  first.confidence = {{"TOTAL", 30}, {"SUPPLIER", 90}};
  first.evidence["TOTAL"].word_mean = 30;
  first.evidence["SUPPLIER"].word_mean = 90;
  second.fields = {
      {"TOTAL", "88.95"}, {"INVOICE_DATE", "15/03/2018"}, {"SUPPLIER", "SANYU STATIONERY"}};
  second.confidence = {{"TOTAL", 70}, {"INVOICE_DATE", 60}, {"SUPPLIER", 85}};
  second.evidence["TOTAL"].word_mean = 70;
  second.evidence["INVOICE_DATE"].word_mean = 60;
  take_second_reading(first, second, false);
  CHECK(first.evidence.at("TOTAL").second_taken);
  CHECK(first.evidence.at("TOTAL").word_mean == 70);  // the second reading's words
  CHECK_FALSE(first.evidence.at("TOTAL").second_agreed);
  CHECK(first.evidence.at("INVOICE_DATE").second_taken);
  CHECK(first.evidence.at("SUPPLIER").second_agreed);
  CHECK_FALSE(first.evidence.at("SUPPLIER").second_taken);
  for (const auto& [name, e] : first.evidence) CHECK(e.second_read);
  const auto x = feature_values(first.evidence.at("SUPPLIER"));
  CHECK(x.at("second_agreed") == 1.0);
  CHECK(x.at("second_disagreed") == 0.0);
}

TEST_CASE("OCR rules: a payment line's amount read doubtfully is marked for a second recognizer") {
  const Rules rules = load_rules("builtin:ocr-rules");
  Page page =
      page_of({"Sub-total 42.46", "Total After Adj Incl GST 4260", "CASH 50.00", "Change Amt 7.50",
               "Total Qty 4", "Rounding Adj 0.02", "GST Reg No : 000683900928"});
  page.lines[5].words[2].confidence = 40;  // "0.02", read doubtfully
  const Extraction e = extract_fields(page, rules, kFieldNames);
  // "4260" has no cents; "0.02" was read under kAmountWordDoubt. Clean amounts, a line whose label
  // reads no amount ("Total Qty") and a registration number beside a tax label are not read again.
  REQUIRE(e.doubtful.size() == 2);
  CHECK(e.doubtful[0].field == "TOTAL");
  CHECK(e.doubtful[0].line == 1);
  CHECK(e.doubtful[0].first == 5);
  CHECK(e.doubtful[0].last == 5);
  CHECK(page.lines[e.doubtful[0].line].words[e.doubtful[0].first].text ==
        "4260");  // the run is that word
  CHECK(e.doubtful[1].line == 5);
  CHECK(e.doubtful[1].first == 1);  // "Adj 0.02": the label read is "Rounding"
  CHECK(e.doubtful[1].last == 2);
  // A value set apart by a gap is its own segment: ":" alone on the label's segment is no figure,
  // and the amount beyond the gap is read with it.
  const Extraction gap =
      extract_fields(page_of({"Total :", "Change :      756"}), rules, kFieldNames);
  REQUIRE(gap.doubtful.size() == 1);
  CHECK(gap.doubtful[0].line == 1);
  CHECK(gap.doubtful[0].first == 1);
  CHECK(gap.doubtful[0].last == 2);
  // A PDF's text layer is read as printed: nothing to read again.
  page.exact = true;
  CHECK(extract_fields(page, rules, kFieldNames).doubtful.empty());
  // Where no date was found, a word shaped like one (a separator twice, 4 digits or more) is read
  // again; a phone number or a price is not.
  const Extraction dated = extract_fields(
      page_of({"Cate' 03/0/2018 Tel 03-61221701", "TOTAL 5.00"}), rules, kFieldNames);
  REQUIRE(dated.fields.at("INVOICE_DATE") == "N/A");
  REQUIRE(dated.doubtful.size() == 1);
  CHECK(dated.doubtful[0].field == "INVOICE_DATE");
  CHECK(dated.doubtful[0].first == 1);
  CHECK(extract_fields(page_of({"Date: 03/02/2018", "TOTAL 5.00"}), rules, kFieldNames)
            .doubtful.empty());
  // The words after a date's label that read as no date (receipt 249 of the 427: "27/03/2018
  // 16:34" printed faint), on the label's segment or beyond a gap, are read again as one run; a
  // label with no digit after it is no date's.
  for (const char* line : {"Date: a7/OMe01S 16.34", "Date:        nomaaeois 10:58"}) {
    CAPTURE(line);
    const Extraction labelled = extract_fields(page_of({line, "TOTAL 5.00"}), rules, kFieldNames);
    REQUIRE(labelled.fields.at("INVOICE_DATE") == "N/A");
    REQUIRE(labelled.doubtful.size() == 1);
    CHECK(labelled.doubtful[0].field == "INVOICE_DATE");
    CHECK(labelled.doubtful[0].first == 1);
    CHECK(labelled.doubtful[0].last == 2);
  }
  CHECK(extract_fields(page_of({"Date: Tuesday", "TOTAL 5.00"}), rules, kFieldNames)
            .doubtful.empty());
}

TEST_CASE(
    "OCR engine: a doubtful total read again by the second recognizer is taken where the sums "
    "vouch for it") {
  const Rules rules = load_rules("builtin:ocr-rules");
  // Receipt 275 of the development set as Tesseract read it; PP-OCRv4 read its words again as
  // "12.15" and "38.00" (typed in here: tests/parity/test_recognizer.cpp runs the network).
  const Page page = page_of({"ITEMS 2", "TOTAL 4Z, 15", "CASH 50.15", "CHANGE 36. 0D"});
  const Extraction e = extract_fields(page, rules, kFieldNames);
  Engine::Result first{e.fields,   e.text, "ocr", {}, e.confidence, e.evidence, {},
                       e.doubtful, {},     {},    {}, {},           {}};
  REQUIRE(first.fields.at("TOTAL") != "12.15");
  REQUIRE_FALSE(vouched_total(first));
  std::vector<int> asked;  // the tops of the boxes read
  const auto read = [&](const Box& box) -> std::optional<LineText> {
    asked.push_back(box.top);
    if (box.top == 30) return LineText{"12.15", 0.999, 0.99, std::vector<float>(5, 0.999f)};
    if (box.top == 90) return LineText{"38.00", 0.93, 0.9, std::vector<float>(5, 0.93f)};
    return LineText{"50.1S", 0.6, 0.5, std::vector<float>(5, 0.6f)};
  };
  const auto sure = [&](const WordRun& run, const LineText& second) {
    return sure_reading(run, second, rules.lexicon, DateOrder::Dmy);
  };
  const Reread reread = read_again(page, first.doubtful, read, sure);
  CHECK(asked == std::vector<int>{90, 30});  // "CHANGE 36. 0D" and "TOTAL 4Z, 15", back to front
  REQUIRE(reread.words.size() == 2);
  CHECK(reread.words[0]["was"] == "4Z, 15");
  CHECK(reread.words[0]["used"] == true);
  CHECK(reread.page.lines[1].text() == "TOTAL 12.15");
  CHECK(reread.page.lines[3].text() == "CHANGE 38.00");
  const Extraction again = extract_fields(reread.page, rules, kFieldNames);
  const Engine::Result second{
      again.fields, again.text, "ocr", {}, again.confidence, again.evidence, {}, {}, {},
      {},           {},         {},    {}};
  CHECK(vouched_total(second));  // 50.15 - 38.00
  REQUIRE(take_reread_total(first, second, reread.replaced_for("TOTAL")));
  CHECK(first.fields.at("TOTAL") == "12.15");
  CHECK(first.evidence.at("TOTAL").reader_taken);
  // Nothing new to take: the same total again.
  CHECK_FALSE(take_reread_total(first, second, reread.replaced_for("TOTAL")));
  // An unsure reading replaces nothing.
  const auto unsure = [](const Box&) {
    return std::optional<LineText>(LineText{"12.15", 0.5, 0.4, std::vector<float>(5, 0.5f)});
  };
  CHECK(read_again(page, e.doubtful, unsure, sure).replaced.empty());
  // A date where none was found: "03/0/2018" read again as "03/02/2018".
  const Page undated = page_of({"Cate' 03/0/2018", "TOTAL 5.00"});
  const Extraction u = extract_fields(undated, rules, kFieldNames);
  Engine::Result no_date{u.fields,   u.text, "ocr", {}, u.confidence, u.evidence, {},
                         u.doubtful, {},     {},    {}, {},           {}};
  const auto date_read = [](const Box&) {
    return std::optional<LineText>(
        LineText{"03/02/2018", 0.99, 0.98, std::vector<float>(10, 0.99f)});
  };
  const Reread dated = read_again(undated, no_date.doubtful, date_read, sure);
  REQUIRE(dated.replaced.size() == 1);
  const Extraction d = extract_fields(dated.page, rules, kFieldNames);
  const Engine::Result with_date{d.fields, d.text, "ocr", {}, d.confidence, d.evidence, {},
                                 {},       {},     {},    {}, {},           {}};
  REQUIRE(take_reread_date(no_date, with_date));
  CHECK(no_date.fields.at("INVOICE_DATE") == "03/02/2018");
  CHECK(no_date.evidence.at("INVOICE_DATE").reader_taken);
  CHECK_FALSE(take_reread_date(no_date, with_date));  // a date is taken only where there was none
}

namespace {

// A bill of two rows, 10 px a character and 30 a line (page_of): the rows' lines at 120 and 150.
// Two rows whose products come to the total (4 x $69.73 + 3 x $116.25); `total` false: the page
// prints none, and nothing checks the rows' figures.
Page two_rows_page(bool total = true) {
  std::vector<std::string> lines = {"TAX INVOICE",
                                    "Harbour Office Supplies",
                                    "",
                                    "Description        Qty     Price",
                                    "Ad paper ream        4    $69.73",
                                    "Flyers x500          3   $116.25",
                                    ""};
  if (total) lines.push_back("TOTAL: $627.67");
  return page_of(lines);
}

// What the engine has of `e` when it cross-reads the rows: its fields, their evidence, its rows.
Engine::Result rows_result(const Extraction& e) {
  Engine::Result r;
  r.fields = e.fields, r.evidence = e.evidence, r.items = e.items;
  return r;
}

}  // namespace

TEST_CASE(
    "OCR engine: each row's description is read again, agreeing rows vouch for the list, a sure "
    "letter is taken into the row and the list") {
  const Rules rules = load_rules("builtin:ocr-rules");
  const Page page = two_rows_page();
  const Extraction e = extract_fields(page, rules, kFieldNames);
  REQUIRE(e.fields.at("DESCRIPTIONS") == "Ad paper ream | Flyers x500");
  REQUIRE(e.items.size() == 2);
  // What is read again is the description's words alone, not its quantity and price.
  REQUIRE(e.items[0].evidence.parts.size() == 1);
  CHECK(e.items[0].evidence.parts[0].right == 130);  // "Ad paper ream": 13 characters from 0
  const auto result = [&] { return rows_result(e); };
  const auto typed = [](std::map<int, std::string> by_top, float p) {
    return [by_top, p](const std::vector<Box>& parts) -> std::optional<LineText> {
      const std::string& text = by_top.at(parts.front().top);
      return LineText{text, p, p, std::vector<float>(text.size(), p)};
    };
  };
  // Both rows read as Tesseract read them: the list agreed, nothing taken.
  Engine::Result same = result();
  const auto agreed = cross_read_rows(
      same, typed({{120, "Ad paper ream"}, {150, "Flyers x500"}}, 0.99f), rules.lexicon);
  REQUIRE(agreed);
  CHECK((*agreed)["rows"] == 2);
  CHECK((*agreed)["agreed"] == 2);
  CHECK(same.evidence.at("DESCRIPTIONS").reader_agreed);
  CHECK_FALSE(same.evidence.at("DESCRIPTIONS").reader_taken);
  CHECK(same.items[1].evidence.reader_agreed);
  // The first read surely as "A4 paper ream": its 4 taken, into the row and the list.
  Engine::Result fixed = result();
  const auto taken = cross_read_rows(
      fixed, typed({{120, "A4 paper ream"}, {150, "Flyers x500"}}, 0.99f), rules.lexicon);
  REQUIRE(taken);
  CHECK((*taken)["taken"] == 1);
  CHECK((*taken)["disagreed"][0]["taken"] == "A4 paper ream");
  CHECK(fixed.items[0].description == "A4 paper ream");
  CHECK(fixed.fields.at("DESCRIPTIONS") == "A4 paper ream | Flyers x500");
  CHECK(fixed.evidence.at("DESCRIPTIONS").reader_taken);
  CHECK_FALSE(fixed.evidence.at("DESCRIPTIONS").reader_agreed);
  // Read unsurely: nothing taken, the list disagreed (neither agreed nor taken).
  Engine::Result unsure = result();
  REQUIRE(cross_read_rows(unsure, typed({{120, "A4 paper ream"}, {150, "Flyers x500"}}, 0.5f),
                          rules.lexicon));
  CHECK(unsure.fields.at("DESCRIPTIONS") == "Ad paper ream | Flyers x500");
  CHECK(unsure.evidence.at("DESCRIPTIONS").reader_read);
  CHECK_FALSE(unsure.evidence.at("DESCRIPTIONS").reader_agreed);
  CHECK_FALSE(unsure.evidence.at("DESCRIPTIONS").reader_taken);
  // A list that is not its rows' descriptions joined takes no letter.
  Engine::Result other = result();
  other.fields["DESCRIPTIONS"] = "Ad paper ream";
  REQUIRE(cross_read_rows(other, typed({{120, "A4 paper ream"}, {150, "Flyers x500"}}, 0.99f),
                          rules.lexicon));
  CHECK(other.items[0].description == "Ad paper ream");
  CHECK(other.fields.at("DESCRIPTIONS") == "Ad paper ream");
  // No list, nothing read.
  Engine::Result none = result();
  none.fields["DESCRIPTIONS"] = "N/A";
  CHECK_FALSE(cross_read_rows(none, typed({}, 0.99f), rules.lexicon));
}

TEST_CASE(
    "OCR engine: each row's price is read again from the word it was read from where nothing "
    "checks it, and a figure read otherwise doubts the list") {
  const Rules rules = load_rules("builtin:ocr-rules");
  const Page page = two_rows_page(false);
  const Extraction e = extract_fields(page, rules, kFieldNames);
  REQUIRE(e.fields.at("PRICES") == "$69.73 | $116.25");
  REQUIRE(e.items.size() == 2);
  // The price's own word (10 px a character): not the row, not its quantity.
  REQUIRE(e.items[0].price_box);
  CHECK(e.items[0].price_box->left == 260);
  CHECK(e.items[0].price_box->right == 320);
  REQUIRE(e.items[1].price_box);
  CHECK(e.items[1].price_box->left == 250);
  // None where PRICES is not a cell of every row joined.
  std::vector<LineItem> other_rows = e.items;
  for (LineItem& item : other_rows) item.price_box.reset();
  mark_price_words(page, other_rows, "$69.73", rules.lexicon);
  CHECK_FALSE(other_rows[0].price_box);
  const auto result = [&] { return rows_result(e); };
  // Typed readings by the left edge of what is read: the prices' words only.
  const auto typed = [](std::map<int, std::string> by_left) {
    return [by_left](const std::vector<Box>& parts) -> std::optional<LineText> {
      const auto it = by_left.find(parts.front().left);
      if (it == by_left.end()) return std::nullopt;
      return LineText{it->second, 0.99, 0.99, std::vector<float>(it->second.size(), 0.99f)};
    };
  };
  Engine::Result same = result();
  const auto agreed =
      cross_read_prices(same, typed({{260, "$69.73"}, {250, "$116.25"}}), rules.lexicon);
  REQUIRE(agreed);
  CHECK((*agreed)["rows"] == 2);
  CHECK((*agreed)["agreed"] == 2);
  CHECK(same.evidence.at("PRICES").reader_agreed);
  // "$116.25" read "$11.62" by the second: the list doubted, its value kept (no sum decides).
  Engine::Result doubted = result();
  const auto differs =
      cross_read_prices(doubted, typed({{260, "$69.73"}, {250, "$11.62"}}), rules.lexicon);
  REQUIRE(differs);
  CHECK((*differs)["agreed"] == 1);
  CHECK((*differs)["disagreed"][0]["price"] == "$116.25");
  CHECK((*differs)["disagreed"][0]["read"] == "$11.62");
  CHECK(doubted.evidence.at("PRICES").reader_read);
  CHECK_FALSE(doubted.evidence.at("PRICES").reader_agreed);
  CHECK(doubted.fields.at("PRICES") == "$69.73 | $116.25");
  // Nothing read, or a list of another count than the rows: nothing to say.
  Engine::Result unread = result();
  CHECK_FALSE(cross_read_prices(unread, typed({}), rules.lexicon));
  CHECK_FALSE(unread.evidence.at("PRICES").reader_read);
  Engine::Result fewer = result();
  fewer.fields["PRICES"] = "$69.73";
  CHECK_FALSE(cross_read_prices(fewer, typed({{260, "$69.73"}}), rules.lexicon));
  // With the total printed, the rows' products come to it: the check settles the figures, and
  // they are not read again (a misreading second reader is never asked).
  const Extraction checked = extract_fields(two_rows_page(), rules, kFieldNames);
  REQUIRE(check_table(checked.items, checked.fields).prices_checked());
  Engine::Result settled = rows_result(checked);
  int asked = 0;
  const auto counting = [&](const std::vector<Box>&) -> std::optional<LineText> {
    ++asked;
    return LineText{"$11.62", 0.99, 0.99, std::vector<float>(6, 0.99f)};
  };
  CHECK_FALSE(cross_read_prices(settled, counting, rules.lexicon));
  CHECK(asked == 0);
  CHECK_FALSE(settled.evidence.at("PRICES").reader_read);
}

TEST_CASE(
    "OCR engine: a seller's line misread at the top is read again and taken where the seller was "
    "doubtful, or below it") {
  const Rules rules = load_rules("builtin:ocr-rules");
  // Receipt 378 of the development set as Tesseract read it: the seller's line garbled, the street
  // taken for the seller, both read under kNameDoubt.
  Page page = page_of({"PETRODEL] EN{ERPRISE", "Company No: SA0127959-D", "JEN ULU KELANG",
                       "54200 KUALA LUMPUR", "TOTAL 85.54"});
  for (Word& w : page.lines[0].words) w.confidence = 45;
  for (Word& w : page.lines[2].words) w.confidence = 60;
  const Extraction e = extract_fields(page, rules, kFieldNames);
  Engine::Result first{e.fields,   e.text, "ocr", {}, e.confidence, e.evidence, {},
                       e.doubtful, {},     {},    {}, {},           {}};
  REQUIRE(first.fields.at("SUPPLIER") == "JEN ULU KELANG");
  REQUIRE(doubtful_seller(first));
  const auto names = std::count_if(e.doubtful.begin(), e.doubtful.end(),
                                   [](const WordRun& r) { return r.field == "SUPPLIER"; });
  CHECK(names == 2);  // the two lines read under kNameDoubt
  const auto read = [](const Box& box) {
    return std::optional<LineText>(
        box.top == 0 ? LineText{"PETRODELI ENTERPRISE", 0.97, 0.9, std::vector<float>(20, 0.97f)}
                     : LineText{"JLN ULU KELANG", 0.95, 0.9, std::vector<float>(14, 0.95f)});
  };
  const auto sure = [&](const WordRun& run, const LineText& second) {
    return sure_reading(run, second, rules.lexicon, DateOrder::Dmy);
  };
  const Reread reread = read_again(page, e.doubtful, read, sure);
  const Extraction a = extract_fields(reread.page, rules, kFieldNames);
  const Engine::Result again{a.fields, a.text, "ocr", {}, a.confidence, a.evidence, {},
                             {},       {},     {},    {}, {},           {}};
  REQUIRE(take_reread_seller(first, again, reread.replaced_for("SUPPLIER")));
  CHECK(first.fields.at("SUPPLIER") == "PETRODELI ENTERPRISE");
  CHECK(first.evidence.at("SUPPLIER").reader_taken);
  // A seller read surely the first time is kept.
  for (Word& w : page.lines[2].words) w.confidence = 95;
  const Extraction sure_first = extract_fields(page, rules, kFieldNames);
  Engine::Result kept{sure_first.fields,
                      sure_first.text,
                      "ocr",
                      {},
                      sure_first.confidence,
                      sure_first.evidence,
                      {},
                      {},
                      {},
                      {},
                      {},
                      {},
                      {}};
  REQUIRE(kept.fields.at("SUPPLIER") == "JEN ULU KELANG");
  CHECK_FALSE(doubtful_seller(kept));
  // A seller read surely gives way to a name read again above it (the page's heading, which
  // Tesseract misread, over a street or the customer's name it read well)...
  Engine::Result legal = kept, plain = kept;
  REQUIRE(take_reread_seller(kept, again, reread.replaced_for("SUPPLIER")));
  CHECK(kept.fields.at("SUPPLIER") == "PETRODELI ENTERPRISE");
  // ... a legal name to a legal name only: not to a brand's logo over it ("BASKIN ROBBINS" over
  // "Golden Scoop Sdn Bhd").
  legal.evidence.at("SUPPLIER").legal = true;
  Engine::Result logo = again;
  logo.evidence.at("SUPPLIER").legal = false;
  CHECK_FALSE(take_reread_seller(legal, logo, reread.replaced_for("SUPPLIER")));
  CHECK(take_reread_seller(legal, again, reread.replaced_for("SUPPLIER")));
  // A name read below the seller's is no heading over it.
  Engine::Result below = again;
  below.evidence.at("SUPPLIER").box.top += 200;
  below.evidence.at("SUPPLIER").box.bottom += 200;
  CHECK_FALSE(take_reread_seller(plain, below, {below.evidence.at("SUPPLIER").box}));
}

TEST_CASE(
    "OCR engine on a sample page: every field read has evidence, a box on the page and a "
    "probability above 0 and at most 1") {
  Settings settings;
  settings.write_evidence = true;
  Engine engine(settings);
  const cv::Mat sample = sample_page();
  const Engine::Result r = engine.read(sample, kFieldNames);
  REQUIRE(r.fields.at("TOTAL") == "$2,480.62");
  int read = 0;
  for (const auto& [name, value] : r.fields) {
    if (value == "N/A") {
      CHECK_FALSE(r.probability.count(name));
      continue;
    }
    ++read;
    INFO(name);
    REQUIRE(r.probability.count(name));
    CHECK(r.probability.at(name) > 0);
    CHECK(r.probability.at(name) <= 1);
    const Evidence& e = r.evidence.at(name);
    CHECK(e.box.left >= 0);
    CHECK(e.box.right > e.box.left);
    CHECK(e.box.bottom > e.box.top);
    CHECK(e.box.right <= sample.cols);
    CHECK(e.box.bottom <= sample.rows);
    CHECK(r.info["evidence"].contains(name));
  }
  CHECK(read >= 15);
  // The total, read beside its label from clean print, with the subtotal and tax agreeing.
  const Evidence& total = r.evidence.at("TOTAL");
  CHECK(total.labelled);
  CHECK(total.sums_agree);
  CHECK(total.word_min > 80);
  CHECK(r.info["evidence"]["TOTAL"]["box"].size() == 4);
}

TEST_CASE(
    "OCR run over samples/: a confidence for every value, confidence.csv row for row, review.csv = "
    "the journal's review lists = the summary") {
  TempDir out;
  const auto r = run_docsift("run " + shell_quote((kSource / "samples").string()) + " --out " +
                             shell_quote(out.path().string()) + " --metrics " +
                             shell_quote((out.path() / "metrics.prom").string()));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // Each page's latest record: pages whose seller or address another read alike have a second
  // (batch/agreement.h).
  std::vector<nlohmann::json> records;
  for (const auto& [file, rec] : docsift::testing::latest_records(out.path()))
    records.push_back(rec);
  REQUIRE(records.size() == 20);
  std::size_t to_review = 0, accepted = 0, pages_accepted = 0;
  std::map<std::string, nlohmann::json> by_file;
  for (const auto& rec : records) {
    by_file[rec["file"]] = rec;
    INFO(rec["file"]);
    std::size_t with_value = 0;
    for (const auto& [field, value] : rec["fields"].items()) {
      if (value == "N/A") {
        // Only a required field the page's type needs carries one on N/A: the engine's that the
        // page prints none (none of samples/' invoices and receipts lacks its ABN or total).
        CHECK_FALSE(rec["confidence"].contains(field));
        continue;
      }
      ++with_value;
      INFO(field);
      REQUIRE(rec["confidence"].contains(field));
      const double p = rec["confidence"][field].get<double>();
      CHECK(p > 0);
      CHECK(p <= 1);
      REQUIRE(rec["boxes"].contains(field));
      CHECK(rec["boxes"][field].size() == 4);
    }
    CHECK(rec["document_type_confidence"] == rec["confidence"]["DOCUMENT_TYPE"]);
    to_review += rec["review"].size();
    accepted += with_value - rec["review"].size();
    pages_accepted += rec["review"].empty() ? 1 : 0;
  }
  // confidence.csv: predictions.csv's rows and columns, a number exactly where a value is.
  const auto table = [&](const char* name) {
    return docsift::io::parse_csv(file_bytes(out.path() / name), name);
  };
  const auto predictions = table("predictions.csv"), confidence = table("confidence.csv"),
             review = table("review.csv");
  CHECK(confidence.header == predictions.header);
  REQUIRE(confidence.rows.size() == predictions.rows.size());
  for (std::size_t i = 0; i < predictions.rows.size(); ++i) {
    CHECK(confidence.rows[i][0] == predictions.rows[i][0]);
    for (std::size_t c = 1; c < predictions.header.size(); ++c) {
      CHECK((predictions.rows[i][c] == "N/A") == confidence.rows[i][c].empty());
    }
  }
  // review.csv: one row per field the journal lists under review, in its order (rising confidence),
  // with its value, threshold, reason, the page's arithmetic against it and box, and an empty
  // `corrected` cell.
  CHECK(review.header == std::vector<std::string>{"image_file", "field", "value", "confidence",
                                                  "threshold", "reason", "check", "x", "y", "width",
                                                  "height", "corrected"});
  CHECK(review.rows.size() == to_review);
  std::string last_file;
  double last_confidence = -1;
  for (const auto& row : review.rows) {
    const auto& rec = by_file.at(row[0]);
    CAPTURE(row[0]);
    CAPTURE(row[1]);
    CHECK(rec["fields"][row[1]] == row[2]);
    CHECK(rec["review_reasons"][row[1]] == row[5]);
    CHECK(std::stod(row[4]) ==
          doctest::Approx(rec["review_thresholds"][row[1]].get<double>()).epsilon(1e-4));
    if (row[5] == "low confidence") CHECK(std::stod(row[3]) < std::stod(row[4]));
    if (row[0] != last_file) last_confidence = -1;
    CHECK(std::stod(row[3]) >= last_confidence);  // a page's rows in rising confidence
    last_file = row[0];
    last_confidence = std::stod(row[3]);
    if (row[5] == "sums disagree") CHECK(row[6].find("SUBTOTAL + GST is ") == 0);
    CHECK(std::stoi(row[7]) > 0);
    CHECK(row[11].empty());
  }
  const auto summary = docsift::testing::read_summary(out.path() / "summary.json");
  CHECK(summary["review"]["fields_to_review"] == to_review);
  CHECK(summary["review"]["fields_accepted"] == accepted);
  CHECK(summary["review"]["pages_accepted"] == pages_accepted);
  CHECK(summary["review"]["pages"] == 20);
  // The log's last line and the metrics say the same.
  CHECK(r.err.find(std::to_string(accepted) + " fields accepted, " + std::to_string(to_review) +
                   " to review") != std::string::npos);
  const std::string metrics = file_bytes(out.path() / "metrics.prom");
  CHECK(metrics.find("docsift_review_fields{state=\"to_review\"} " + std::to_string(to_review) +
                     "\n") != std::string::npos);

  // A threshold of 0 accepts every value the page's own checks do not doubt: counts of items that
  // disagree (samples/ 005, whose quantity Tesseract misreads, where no second recognizer reads it
  // again; 020's, read with little confidence, is read since bench/rows), and the two statements
  // whose rows as read do not take the opening balance to the closing one (003's -$329.43 and
  // 009's -$323.58 read without their minus), whose transactions go to a person; --resume rebuilds
  // the three files from the journal alike.
  const nlohmann::json& misread = by_file.at("synthetic_invoice_005.png")["engine"];
  const bool read_again = misread.contains("reread") && misread["reread"].contains("rows");
  CHECK(read_again == misread.contains("readers"));  // wherever the second recognizer is there
  TempDir all;
  const auto zero = run_docsift("run " + shell_quote((kSource / "samples").string()) + " --out " +
                                shell_quote(all.path().string()) +
                                " --quiet --set review.threshold=0 --set review.fields=null");
  REQUIRE_MESSAGE(zero.exit_code == 0, zero.err);
  CHECK(table("review.csv").rows.size() == to_review);  // the first folder's, unchanged
  const auto doubted = docsift::io::parse_csv(file_bytes(all.path() / "review.csv"), "review.csv");
  std::set<std::string> doubted_pages;
  for (const auto& row : doubted.rows) {
    CHECK(row[5] != "low confidence");
    if (row[5] == "rows disagree") {
      const std::set<std::string> statement{"DESCRIPTIONS", "OPENING_BALANCE", "CLOSING_BALANCE"};
      CHECK(statement.count(row[1]) == 1);
      CHECK(row[6].find("opening balance + transactions is ") == 0);
    }
    doubted_pages.insert(row[0]);
  }
  std::set<std::string> unbalanced{"synthetic_invoice_003.png", "synthetic_invoice_009.png"};
  if (!read_again) unbalanced.insert("synthetic_invoice_005.png");
  CHECK(doubted_pages == unbalanced);
  CHECK(docsift::testing::read_summary(all.path() / "summary.json")["review"]["pages_accepted"] ==
        20 - static_cast<int>(unbalanced.size()));
  fs::remove(out.path() / "review.csv");
  fs::remove(out.path() / "confidence.csv");
  const auto again = run_docsift("run " + shell_quote((kSource / "samples").string()) + " --out " +
                                 shell_quote(out.path().string()) + " --quiet --resume");
  REQUIRE_MESSAGE(again.exit_code == 0, again.err);
  CHECK(table("review.csv").rows.size() == to_review);
  CHECK(table("confidence.csv").rows.size() == predictions.rows.size());
}

TEST_CASE(
    "a labelled text field needs YAML only: a rules file and a schema add PURCHASE_ORDER, the "
    "engine reads it") {
  TempDir dir;
  // The shipped rules with one field more, of the kind `text`: no C++ names it.
  YAML::Node rules_yaml = YAML::LoadFile((kSource / "configs/fields/ocr-rules.yaml").string());
  YAML::Node po;
  po["kind"] = "text";
  po["labels"].push_back("po number");
  po["labels"].push_back("purchase order");
  po["labels"].push_back("order no");
  rules_yaml["fields"]["PURCHASE_ORDER"] = po;
  YAML::Emitter rules_out;
  rules_out << rules_yaml;
  write_text(dir.path() / "rules.yaml", rules_out.c_str());
  const Rules rules = load_rules((dir.path() / "rules.yaml").string());
  const Page page = page_of({"TAX INVOICE", "ACME PTY LTD", "PO Number: 4500-1187",
                             "Date 03/04/2024", "", "Total $12.00"});
  const Extraction got = extract_fields(page, rules, {"PURCHASE_ORDER", "TOTAL", "INVOICE_DATE"});
  CHECK(got.fields.at("PURCHASE_ORDER") == "4500-1187");
  CHECK(got.fields.at("TOTAL") == "$12.00");
  CHECK(got.evidence.at("PURCHASE_ORDER").labelled);
  // The shipped rules do not know it: N/A, and the other fields are the same.
  const Extraction shipped = extract_fields(page, load_rules("builtin:ocr-rules"),
                                            {"PURCHASE_ORDER", "TOTAL", "INVOICE_DATE"});
  CHECK(shipped.fields.at("PURCHASE_ORDER") == "N/A");
  CHECK(shipped.fields.at("TOTAL") == got.fields.at("TOTAL"));
  CHECK(shipped.fields.at("INVOICE_DATE") == got.fields.at("INVOICE_DATE"));
  // An unknown kind is refused with the kinds listed (the table's, not a second list).
  rules_yaml["fields"]["PURCHASE_ORDER"]["kind"] = "number";
  YAML::Emitter bad;
  bad << rules_yaml;
  write_text(dir.path() / "bad.yaml", bad.c_str());
  CHECK_THROWS_WITH_AS(load_rules((dir.path() / "bad.yaml").string()),
                       doctest::Contains("kind 'number' is not one of abn, date, period, amount, "
                                         "bsb, account, phone, email, name, text"),
                       docsift::ConfigError);

  // End to end: `docsift run` with the schema and the rules files (YAML only) writes the new
  // column.
  YAML::Node schema = YAML::LoadFile((kSource / "configs/fields/business-documents.yaml").string());
  REQUIRE(schema["fields"].IsSequence());
  YAML::Node field =
      YAML::Clone(schema["fields"][1]);  // SUPPLIER's: a text field of invoices and receipts
  field["name"] = "PURCHASE_ORDER";
  field["instruction"] = "purchase order number or N/A";
  schema["fields"].push_back(field);
  YAML::Emitter schema_out;
  schema_out << schema;
  write_text(dir.path() / "schema.yaml", schema_out.c_str());
  const auto r =
      run_docsift("run " + shell_quote((kSource / "samples").string()) +
                  " --set extraction.fields=" + shell_quote((dir.path() / "schema.yaml").string()) +
                  " --set ocr.rules=" + shell_quote((dir.path() / "rules.yaml").string()) +
                  " --quiet --out " + shell_quote((dir.path() / "out").string()));
  REQUIRE_MESSAGE(r.exit_code <= 1, r.err);  // 1: the one damaged sample JPEG fails, as always
  const auto csv = docsift::io::read_csv(dir.path() / "out/predictions.csv");
  CHECK(std::find(csv.header.begin(), csv.header.end(), "PURCHASE_ORDER") != csv.header.end());
  for (const auto& record : journal_lines(dir.path() / "out/results.jsonl")) {
    if (record["status"] == "ok") CHECK(record["fields"].contains("PURCHASE_ORDER"));
  }
}

TEST_CASE(
    "OCR rules, the seller by layout: beside the payer's column, on a sender line, named by a "
    "domain, under its label past its numbers") {
  const Rules rules = load_rules("builtin:ocr-rules");
  const auto supplier = [&](const std::vector<std::string>& lines) {
    return extract_fields(page_of(lines), rules, kFieldNames).fields.at("SUPPLIER");
  };
  // One block of two columns: the payer's label and name on the right, the seller's on the left.
  CHECK(supplier({"Invoice", "Example, LLC              Bill To",
                  "123 Fake Street           Customer", "support@example.com"}) == "Example, LLC");
  // A letter's sender line above the address window names the seller and its address; the legal
  // name below it is the recipient's.
  const auto letter =
      extract_fields(page_of({"weclapp.com | Somestreet 42 | 08155 Some city", "Beispiel AG",
                              "Feldstrasse 34", "54321 Hithausen", "", "Rechnung RE1001"}),
                     rules, kFieldNames);
  CHECK(letter.fields.at("SUPPLIER") == "weclapp.com");
  CHECK(letter.fields.at("BUSINESS_ADDRESS") == "Somestreet 42, 08155 Some city");
  // The name the page's email address repeats wins over the line above it; a webmail one names no
  // one.
  CHECK(supplier({"NORDWIND HANDEL GMBH", "", "MUSTERLIEFERANT GMBH", "",
                  "E-Mail: max.muster@musterlieferant.de"}) == "MUSTERLIEFERANT GMBH");
  CHECK(supplier({"NORDWIND HANDEL GMBH", "", "MUSTERLIEFERANT GMBH", "",
                  "E-Mail: muster@gmail.com"}) == "NORDWIND HANDEL GMBH");
  // A name's first letters lost at the paper's edge come back from the page's domain, printed
  // without its "www." (the 427's 083); a domain that is not the word grown at its front changes
  // nothing.
  CHECK(supplier({"OPAC MARKETING SDN BHD (1070687-M)", "JALAN MANIS 4 TAMAN SEGAR 56100 KL",
                  ".vivopac.com", "INVOICE"}) == "VIVOPAC MARKETING SDN BHD");
  CHECK(supplier({"OPAC MARKETING SDN BHD (1070687-M)", "JALAN MANIS 4 TAMAN SEGAR 56100 KL",
                  ".opacity.com", "INVOICE"}) == "OPAC MARKETING SDN BHD");
  // Under its label, past the party's number on the line between.
  CHECK(supplier({"Verkäufer:", "Nummer : 12345676", "Rohstoff AG Salzgitter", "Marktstr. 153"}) ==
        "Rohstoff AG Salzgitter");
  // A label inside a compound column heading ("the supplier's article number") labels nothing.
  // And a name's label that ends a line of other words heads no column: "CHOPSTICK HOLDER" is an
  // item, and the numbers and the item below it are no account holder, whose column would hide the
  // seller.
  CHECK(supplier({"ACME GMBH", "", "Art-Nr-Lieferant Menge Preis"}) == "ACME GMBH");
  // "Customer Service" on a telephone line is no payer's label (ocr-rules.yaml's
  // party_label_phrases), so the lines around it stay the seller's.
  const auto phone_line =
      extract_fields(page_of({"Elitetrax Marketing Sdn Bhd", "No. 1 Jalan SS 7/26A,",
                              "TEL: 1300-88-5200 (HN Customer Service)"}),
                     rules, kFieldNames);
  CHECK(phone_line.fields.at("SUPPLIER") == "Elitetrax Marketing Sdn Bhd");
  CHECK(phone_line.fields.at("PAYER_NAME") == "N/A");
  CHECK(supplier({"Eco-Shop Marketing Sdn Bhd", "Lot F1-01, 6, Jalan 8/27A,",
                  "JT5501 - CHOPSTICK HOLDER", "72/1", "65045039@2.33 1 2.33",
                  "PLIERS 6 110G 120PCS"}) == "Eco-Shop Marketing Sdn Bhd");
  // A one-column receipt read as one block: the payer's column starts at its label, so the header
  // above it is still the seller's (the 200's 399), and the payer is the payer.
  const auto bill_to =
      extract_fields(page_of({"BEYOND BROTHERS HARDWARE", "(872981-V)", "LOT 1-0-2, JLN 1/50,",
                              "DIAMOND SQUARE", "53000 KUALA LUMPUR", "TAX INVOICE", "Bill To",
                              "PDP UTEK (M) SDN BHD", "SEBELAH PETRONAS"}),
                     rules, kFieldNames);
  CHECK(bill_to.fields.at("SUPPLIER") == "BEYOND BROTHERS HARDWARE");
  CHECK(bill_to.fields.at("PAYER_NAME") == "PDP UTEK (M) SDN BHD");
  // A name over three lines while a bracket stays open, and one that ends in '&' (the 427's 513,
  // 012).
  CHECK(supplier({"AIK HUAT HARDWARE", "ENTERPRISE (SETIA", "ALAM) SDN BHD", "(CO.REG :822737-X)",
                  "TAX INVOICE"}) == "AIK HUAT HARDWARE ENTERPRISE (SETIA ALAM) SDN BHD");
  CHECK(supplier({"HOME MASTER HARDWARE &", "ELECTRICAL", "NO. 12, JALAN MAHOGANI 1,",
                  "TAX INVOICE"}) == "HOME MASTER HARDWARE & ELECTRICAL");
  CHECK(supplier({"HOME MASTER HARDWARE", "ELECTRICAL", "NO. 12, JALAN MAHOGANI 1,",
                  "TAX INVOICE"}) == "HOME MASTER HARDWARE");
  // A name whose legal form is the line below it: a country in it names the company, not an
  // address (the 427's 061).
  CHECK(supplier({"PERi-PERI CHICKEN", "Nando's Chickenland Malaysia", "Sdn Bhd",
                  "Unit G-13, Ground Floor, No.1", "TAX INVOICE"}) ==
        "Nando's Chickenland Malaysia Sdn Bhd");
  // A name's block ends at its registration number: the line between continues the name (the
  // 200's 173); a trading name over its legal name across a speck read "." (its 478).
  CHECK(supplier({"RESTAURANT JIAWEI", "JIAWEI HOUSE", "002693074-K", "13, JLN TASIK UTAMA 8",
                  "INVOICE"}) == "RESTAURANT JIAWEI JIAWEI HOUSE");
  CHECK(supplier({"TOKYO KITCHEN (CITTA MALL)", ".", "TOKYO KITCHEN SDN BHD", "(945402-P)",
                  "G-26, GRD FLOOR,"}) == "TOKYO KITCHEN (CITTA MALL) TOKYO KITCHEN SDN BHD");
  // ... but not a line that shares no word with it there (a logo read as letters, the 427's 107).
  CHECK(supplier({"AL MENDIS MINES", ".", "ZAWIAJAYA FOOD N BEVERAGE SDN BHD", "(1093017-T)",
                  "TAX INVOICE"}) == "ZAWIAJAYA FOOD N BEVERAGE SDN BHD");
  // A bracket a misread left open takes no line below that closes none (the 427's 166).
  CHECK(supplier({"THE STORE (MALAYSIA? SDN BHD", "UBI TSTORE COH HY", "LOT 5 JALAN BATU AMBAR",
                  "TAX INVOICE"}) == "THE STORE (MALAYSIA? SDN BHD");
  // A logo's words over the name written in full with its legal form, a line between (the 427's
  // 411); a line below that only starts alike, with no legal form, is another line.
  CHECK(supplier({"EIGHT OUNCE", "COFFEE", "EIGHT OUNCE COFFEE CO. THE GARDENS MALL",
                  "F.KO6, First Floor,", "TAX INVOICE"}) ==
        "EIGHT OUNCE COFFEE CO. THE GARDENS MALL");
  CHECK(supplier({"EIGHT OUNCE", "COFFEE", "EIGHT OUNCE COFFEE THE GARDENS MALL",
                  "F.KO6, First Floor,", "TAX INVOICE"}) == "EIGHT OUNCE");
  // A return policy or a greeting that names a store is no seller (the 427's 382, 589, 314), and a
  // zero among a name's capitals is the letter O (382: "HAI-0 RAYA BHD").
  CHECK(supplier({"EXCHANGEABLE AT STORE OF PURCHASE WITHIN", "7 DAYS WITH ORIGINAL RECEIPT"}) ==
        "N/A");
  CHECK(supplier({"TQ FOR SHOPPING WITH myNEWS", "THANK YOU, PLEASE COME AGAIN.", "TAX INVOICE"}) ==
        "N/A");
  CHECK(supplier({"HAI-0 RAYA BHD", "(12345-X)", "TAX INVOICE"}) == "HAI-O RAYA BHD");
  CHECK(supplier({"CT20 TEALIVE SDN BHD", "(12345-X)", "TAX INVOICE"}) == "CT20 TEALIVE SDN BHD");
  // A company named for its domain is a name when its legal form follows (the 427's 397); a web
  // address alone is not.
  CHECK(supplier({"eCosway.com SDN BHD", "(509213-A)", "TAX INVOICE"}) == "eCosway.com SDN BHD");
  CHECK(supplier({"www.ecosway.com", "TAX INVOICE"}) == "N/A");
  // A word of trade one misread letter off is read as it ("OISTRIBUTION": the 427's 263).
  CHECK(supplier({"HERO OISTRIBUTION SDN BHD", "(123456-X)", "TAX INVOICE"}) ==
        "HERO DISTRIBUTION SDN BHD");
}

TEST_CASE(
    "OCR document type: a tall receipt's heading under a header that fills its top third, a line "
    "mostly the heading's, and a sentence there that names one is no heading") {
  const Rules rules = load_rules("builtin:ocr-rules");
  // Lines 30 px apart on a page 1100 px tall: line 13 stands at 390 px, 35 % down.
  std::vector<std::string> lines{"MR. D.I.Y. (M) SDN BHD", "(CO.REG :860671-D)",
                                 "LOT 1851-A & 1851-B, JALAN KPB 6",
                                 "KAWASAN PERINDUSTRIAN BALAKONG"};
  lines.resize(13, std::string("43300 SERI KEMBANGAN, SELANGOR"));
  lines.insert(lines.end(), {std::string("-TAX INVOICE-"), std::string("TOTAL 12.50")});
  CHECK(extract_fields(page_of(lines), rules, kFieldNames).fields.at("DOCUMENT_TYPE") ==
        "TAX INVOICE");
  lines[13] = "SIMPLIFIED TAX INVOICE";
  CHECK(extract_fields(page_of(lines), rules, kFieldNames).fields.at("DOCUMENT_TYPE") ==
        "TAX INVOICE");
  // There, a sentence whose letters are mostly not the heading's: no type.
  lines[13] = "Keep the invoice for applicable returns";
  CHECK(extract_fields(page_of(lines), rules, kFieldNames).fields.at("DOCUMENT_TYPE") == "N/A");
  // Under the top half, a line that is only a heading (the 200's 058 prints "TAX INVOICE" under
  // its payment), but no line with a number or a label that names one.
  lines.insert(lines.begin() + 4, 6, std::string("JALAN KPB 6"));
  lines[19] = "-TAX INVOICE-";
  REQUIRE(lines.size() == 21);
  CHECK(extract_fields(page_of(lines), rules, kFieldNames).fields.at("DOCUMENT_TYPE") ==
        "TAX INVOICE");
  lines[19] = "TAX INVOICE NO. 039170";
  CHECK(extract_fields(page_of(lines), rules, kFieldNames).fields.at("DOCUMENT_TYPE") == "N/A");
  lines[19] = "Invoice No: 2018020951320023885";
  CHECK(extract_fields(page_of(lines), rules, kFieldNames).fields.at("DOCUMENT_TYPE") == "N/A");
}

TEST_CASE(
    "OCR document type: a heading read glued or one letter off is read, and marked repaired") {
  const Rules rules = load_rules("builtin:ocr-rules");
  const auto read = [&](const std::string& heading) {
    return extract_fields(page_of({"KEDAI RUNCIT ABC", heading, "TOTAL 12.50"}), rules,
                          kFieldNames);
  };
  for (const char* heading : {"TAXINVOICE", "fax Tinvoice", "__..._ TAXINVOICE"}) {
    CAPTURE(heading);
    const Extraction e = read(heading);
    CHECK(e.fields.at("DOCUMENT_TYPE") == "TAX INVOICE");
    CHECK(e.evidence.at("DOCUMENT_TYPE").repaired);
  }
  CHECK(read("RECElPT").fields.at("DOCUMENT_TYPE") == "RECEIPT");
  // A heading word's accent dropped, as OCR reads it ("REÇU" read "RECU"): read, not repaired.
  CHECK(read("RECU").fields.at("DOCUMENT_TYPE") == "RECEIPT");
  CHECK_FALSE(read("RECU").evidence.at("DOCUMENT_TYPE").repaired);
  // Read as printed: not repaired.
  CHECK_FALSE(read("TAX INVOICE").evidence.at("DOCUMENT_TYPE").repaired);
  // Two letters off, or a line mostly of other words, is no heading.
  CHECK(read("TAX THVOICE").fields.at("DOCUMENT_TYPE") == "N/A");
  CHECK(read("SPECIAL RECEIPTS PROMOTION").fields.at("DOCUMENT_TYPE") == "N/A");
}

TEST_CASE(
    "OCR document type: with no heading, a total and what was paid make a receipt, a line that "
    "says statement and a balance a statement") {
  const Rules rules = load_rules("builtin:ocr-rules");
  const Extraction paid = extract_fields(
      page_of({"KEDAI RUNCIT ABC", "MILO 2.50", "TOTAL 12.50", "CASH 20.00", "CHANGE 7.50"}), rules,
      kFieldNames);
  CHECK(paid.fields.at("DOCUMENT_TYPE") == "RECEIPT");
  CHECK(paid.evidence.at("DOCUMENT_TYPE").repaired);  // inferred, not read
  // A statement whose heading names its bank ("NAB Statement") prints a balance: a statement, never
  // a receipt.
  const Extraction statement =
      extract_fields(page_of({"NAB Statement", "Opening balance $6,854.62", "TOTAL 12.50",
                              "CASH 20.00", "CHANGE 7.50", "Closing balance $6,866.12"}),
                     rules, kFieldNames);
  CHECK(statement.fields.at("DOCUMENT_TYPE") == "BANK STATEMENT");
  CHECK(statement.evidence.at("DOCUMENT_TYPE").repaired);
  // Typed so before TOTAL is chosen: a statement has no bill's total, as one with a heading has
  // none (choose_total).
  CHECK(statement.fields.at("TOTAL") == "N/A");
  CHECK(extract_fields(
            page_of({"Westpac Statement of account", "Opening balance $6,854.62", "TOTAL 12.50",
                     "CASH 20.00", "CHANGE 7.50", "Closing balance $6,866.12"}),
            rules, kFieldNames)
            .fields.at("TOTAL") == "N/A");
  // A total alone says nothing of what the page is; a printed heading wins over the payment.
  CHECK(
      extract_fields(page_of({"KEDAI RUNCIT ABC", "MILO 2.50", "TOTAL 12.50"}), rules, kFieldNames)
          .fields.at("DOCUMENT_TYPE") == "N/A");
  CHECK(extract_fields(page_of({"KEDAI RUNCIT ABC", "TAX INVOICE", "TOTAL 12.50", "CASH 20.00",
                                "CHANGE 7.50"}),
                       rules, kFieldNames)
            .fields.at("DOCUMENT_TYPE") == "TAX INVOICE");
}

TEST_CASE("the rules' home: its country and its states come from the YAML alone") {
  TempDir dir;
  const Rules shipped = load_rules("builtin:ocr-rules");
  CHECK(shipped.home.country == "australia");
  CHECK(docsift::ocr::looks_like_address("Brisbane QLD 4000", shipped.lexicon));
  // Another home: its states tell an address, Australia's no longer do.
  YAML::Node rules_yaml = YAML::LoadFile((kSource / "configs/fields/ocr-rules.yaml").string());
  rules_yaml["home"]["country"] = "New Zealand";
  rules_yaml["home"]["regions"] = YAML::Load("[akl, wgn]");
  YAML::Emitter out;
  out << rules_yaml;
  write_text(dir.path() / "nz.yaml", out.c_str());
  const Rules nz = load_rules((dir.path() / "nz.yaml").string());
  CHECK(nz.home.country == "new zealand");
  CHECK(docsift::ocr::looks_like_address("Auckland AKL 1010", nz.lexicon));
  CHECK_FALSE(docsift::ocr::looks_like_address("Brisbane QLD 4000", nz.lexicon));
  // A country that is no name is refused, naming the key.
  rules_yaml["home"]["country"] = YAML::Load("[australia]");
  YAML::Emitter bad;
  bad << rules_yaml;
  write_text(dir.path() / "bad.yaml", bad.c_str());
  CHECK_THROWS_WITH_AS(load_rules((dir.path() / "bad.yaml").string()),
                       doctest::Contains("home.country: expected a country's name"),
                       docsift::ConfigError);
}

namespace {

// A second recognizer that counts the crops it is given and reads nothing in them.
class CountingReader : public docsift::ocr::LineRecognizer {
 public:
  explicit CountingReader(int& crops) : crops_(crops) {}
  docsift::ocr::LineText read(const cv::Mat&) const override {
    ++crops_;
    return {};
  }
  std::string name() const override { return "counting"; }

 private:
  int& crops_;
};

}  // namespace

TEST_CASE("OCR engine on a page turned over: read turned, and the page given is left as it was") {
  // The second recognizer's crops of a page read turned are turned upright each in an image of
  // its own: rotated in place, through a view of the page, they turned the page's own pixels,
  // which later crops and the evened second reading then read scrambled.
  cv::Mat turned;
  cv::rotate(sample_page(), turned, cv::ROTATE_180);
  const cv::Mat before = turned.clone();
  int crops = 0;
  Engine engine(Settings{}, std::make_unique<CountingReader>(crops));
  const Engine::Result r = engine.read(turned, kFieldNames);
  CHECK(r.info["prepared"]["turned_180"] == true);
  CHECK(r.fields.at("TOTAL") == "$2,480.62");
  CHECK(crops > 0);  // the values read were cross-read
  CHECK(cv::norm(turned, before, cv::NORM_INF) == 0);
}
