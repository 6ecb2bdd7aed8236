// ocr.known_sellers (ocr/known_names.h): the list's parsing and limits, finding a listed name in a
// misread value or on a page's line, and the engine writing the list's spelling with its evidence.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "docsift/error.h"
#include "docsift/ocr/calibration.h"
#include "docsift/ocr/engine.h"
#include "docsift/ocr/known_names.h"

namespace {
using docsift::ocr::KnownNames;
namespace fs = std::filesystem;

const std::vector<std::string> kSellerFields = {"SUPPLIER", "TOTAL", "INVOICE_DATE"};

// A page's words from a text layer (Engine::read_words): one line per string, 40 px apart.
std::vector<docsift::ocr::Word> words_of(const std::vector<std::string>& lines) {
  std::vector<docsift::ocr::Word> words;
  int y = 40;
  for (const std::string& line : lines) {
    int x = 40;
    std::size_t at = 0;
    while (at < line.size()) {
      const std::size_t end = std::min(line.find(' ', at), line.size());
      const std::string w = line.substr(at, end - at);
      if (!w.empty()) {
        words.push_back({w, {x, y, x + 12 * static_cast<int>(w.size()), y + 20}, 91.0f});
        x += 12 * static_cast<int>(w.size()) + 12;
      }
      at = end + 1;
    }
    y += 40;
  }
  return words;
}

fs::path write_list(const std::string& name, const std::string& text) {
  const fs::path path = fs::temp_directory_path() /
                        ("docsift-known-" + name + "-" + std::to_string(::getpid()) + ".txt");
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The page's lines read by an engine whose ocr.known_sellers is `list` ("" for none), the list
// written to a file of its own and removed after.
docsift::ocr::Engine::Result read_with_list(
    const std::vector<std::string>& lines, const std::string& list,
    const std::vector<std::string>& fields = kSellerFields) {
  docsift::ocr::Settings settings;
  fs::path file;
  if (!list.empty()) {
    file = write_list(std::to_string(std::hash<std::string>{}(list)), list);
    settings.known_sellers = file.string();
  }
  docsift::ocr::Engine engine(settings);
  auto result = engine.read_words(words_of(lines), 600, 400, fields);
  if (!file.empty()) fs::remove(file);
  return result;
}

}  // namespace

TEST_CASE(
    "known sellers: one name per line, comments and blank lines skipped, CRLF and spaces trimmed") {
  const KnownNames list = KnownNames::from_text(
      "# vendor master\n\nSANYU STATIONERY SHOP\r\n  MR. D.I.Y. (M) SDN BHD  \nKFC\n", "v.txt");
  CHECK(list.size() == 3);
  CHECK(docsift::ocr::name_key("Mr. D.I.Y. (M) Sdn Bhd") == "MRDIYMSDNBHD");
  // Non-ASCII letters stay as their bytes; non-ASCII punctuation goes as ASCII's does.
  CHECK(docsift::ocr::name_key("M\u00fcller \uFF08GmbH\uFF09 \u2019") == "M\u00fcLLERGMBH");
}

TEST_CASE("known sellers: a bad list is refused naming the file and line") {
  const auto refused = [](const std::string& text, const std::string& says) {
    try {
      KnownNames::from_text(text, "vendors.txt");
      FAIL("accepted: " << text.substr(0, 40));
    } catch (const docsift::ConfigError& e) {
      const std::string what = e.what();
      CHECK(what.find(says) != std::string::npos);
      CHECK(what.rfind("vendors.txt:", 0) == 0);
    }
  };
  refused("ACME\n---\n", "vendors.txt:2: '---' has no letter or digit");
  refused(std::string("ACME\nBAD\0NAME\n", 14), "a NUL byte");
  refused(std::string(301, 'A') + "\n", "over 300 bytes");
  std::string many;
  for (std::size_t i = 0; i <= KnownNames::kMaxNames; ++i)
    many += "SELLER " + std::to_string(i) + "\n";
  refused(many, "over 20000 names");
  CHECK_THROWS_AS(KnownNames::load("/nonexistent/vendors.txt"), docsift::ConfigError);
  CHECK(KnownNames::load("").empty());
}

TEST_CASE(
    "known sellers: a misread seller is found within one edit per 8 letters, inside a longer line "
    "too") {
  const KnownNames list = KnownNames::from_text(
      "SANYU STATIONERY SHOP\nSYARIKAT PERNIAGAAN GIN KEE\nOLIVE9 PHARMACY SDN BHD\nKFC\nMR D.I.Y. "
      "(M) SDN BHD\nMR D.I.Y. (KUCHAI) SDN BHD\n",
      "v.txt");
  auto m = list.find_in("SANYO STATIONERY SHOP");
  REQUIRE(m);
  CHECK(m->name == "SANYU STATIONERY SHOP");
  CHECK(m->distance == 1);
  m = list.find_in("Con feR x SANYO STATIONERY SHOP");
  REQUIRE(m);
  CHECK(m->name == "SANYU STATIONERY SHOP");
  m = list.find_in("SYARIKATPERNIAGAAN GIN KEE");  // spaces are not letters
  REQUIRE(m);
  CHECK(m->distance == 0);
  CHECK_FALSE(list.find_in("LIVES PuaRHACY SDN BHD"));  // 4 edits from a 20-letter name: too far
  CHECK_FALSE(list.find_in("KFC CHICKEN RICE"));        // a short name only as the whole text
  CHECK(list.find_in("K.F.C.")->name == "KFC");
  m = list.find_in("MR. D.I.Y. (KUCHAI) SDN BHD");
  REQUIRE(m);
  CHECK(m->name == "MR D.I.Y. (KUCHAI) SDN BHD");
  // Two names equally near: no match.
  const KnownNames twins =
      KnownNames::from_text("ALPHA TRADING SDN BHD\nALPHA TRADINO SDN BHD\n", "t.txt");
  CHECK_FALSE(twins.find_in("ALPHA TRADINQ SDN BHD"));
  CHECK(twins.find_in("ALPHA TRADING SDN BHD")->name == "ALPHA TRADING SDN BHD");
}

TEST_CASE(
    "known sellers: a listed name that is a part of the text's (a company form alone) is not its "
    "name") {
  // The 427 development receipts' 017.jpg: its seller read and accepted as "SDN BHD", listed by
  // `docsift review sellers` from that run beside the sellers it read right.
  const KnownNames list = KnownNames::from_text(
      "SDN BHD\nEDEN IMPRESSION SDN BHD\nGARDENIA BAKERIES (KL) SDN BHD\n", "read.txt");
  auto m = list.find_in("Sushi Q EDEN IMPRESSION SDN BHD");
  REQUIRE(m);
  CHECK(m->name == "EDEN IMPRESSION SDN BHD");
  m = list.find_in("EDEN IMPRESION SDN BHD");  // one edit from the longer, none from the part
  REQUIRE(m);
  CHECK(m->name == "EDEN IMPRESSION SDN BHD");
  CHECK_FALSE(list.find_in("LIGHTROOM GALLERY SDN BHD"));  // unlisted: the part is no match
  CHECK_FALSE(list.find_in("MAKASSAR FRESH MARKET SDN BHD"));
  CHECK(list.find_in("SDN BHD")->name == "SDN BHD");
  // A longer listed name only by a misread does not take a name the text holds exactly.
  const KnownNames read = KnownNames::from_text(
      "GARDENIA BAKERIES (KL) SDN BHD\nGA R DENIA BAK ERI ES (KL) SDN BHD X)\n", "r.txt");
  CHECK(read.find_in("GARDENIA BAKERIES (KL) SDN BHD")->name == "GARDENIA BAKERIES (KL) SDN BHD");
  CHECK(list.find_in("GARDENIA BAKERIES (KI) SDN BHD")->name == "GARDENIA BAKERIES (KL) SDN BHD");
}

TEST_CASE(
    "known sellers: an address after a tab is found where the page prints it and holds the value "
    "read") {
  const std::string head = "LOT P.T. 2811, JALAN ANGSA, TAMAN BERKELEY 41150 KLANG, SELANGOR";
  const KnownNames list = KnownNames::from_text(
      "SANYU STATIONERY SHOP\t NO. 31G&33G, JALAN SETIA INDAH X U13/X, 40170 SETIA ALAM\n"
      "99 SPEED MART S/B\t" +
          head + "\n99 SPEED MART S/B\t" + head + " 1558-TMN PUSAT KEPONG\n" + "KFC\t\n",
      "v.txt");
  // The address found, "" for none.
  const auto found = [&](const std::string& seller, const std::string& value,
                         const std::string& page) {
    const auto m = list.find_address(seller, value, page);
    return m ? m->name : std::string();
  };
  CHECK(list.size() == 4);
  CHECK(list.has_addresses());
  CHECK(list.find_in("SANYU STATIONERY SHOP")->name == "SANYU STATIONERY SHOP");  // not its address
  // A misread value, and a page that prints the whole address over two lines.
  const std::string page =
      "SANYO STATIONERY SHOP\nNO. 31G833G, JALAN SETIA INDAH X U13/X,\n40170 SETIA ALAN\nTOTAL "
      "9.00";
  auto m =
      list.find_address("SANYU STATIONERY SHOP", "NO. 31G833G, JALAN SETIA INDAH X U13/X,", page);
  REQUIRE(m);
  CHECK(m->name == "NO. 31G&33G, JALAN SETIA INDAH X U13/X, 40170 SETIA ALAM");
  CHECK(m->distance == 2);
  CHECK_FALSE(list.find_address("SANYU STATIONERY SHOP", "NO. 31G833G", "SANYU STATIONERY SHOP"));
  CHECK_FALSE(list.find_address("KFC", "NO. 31G&33G, JALAN SETIA INDAH X U13/X", page));
  CHECK_FALSE(list.find_address("", "NO. 31G&33G, JALAN SETIA INDAH X U13/X", page));
  // A branch the page prints after the head office: the branch's line, never the head office's.
  const std::string branch = head + " 1558-TMN PUSAT KEPONG";
  CHECK(found("99 SPEED MART S/B", branch, "99 SPEED MART S/B\n" + branch) == branch);
  const std::string other = head + " 1249-TMN PANDAN CAHAYA";
  CHECK_FALSE(list.find_address("99 SPEED MART S/B", other, "99 SPEED MART S/B\n" + other));
  // The head office read alone on a page that prints the branch: the branch, as near as the head
  // office and going on from it; on a page of a branch the list lacks, nothing (the head office
  // nearest), nor a listed branch a few letters from the page's.
  CHECK(found("99 SPEED MART S/B", head, "99 SPEED MART S/B\n" + branch) == branch);
  CHECK(found("99 SPEED MART S/B", head, "99 SPEED MART S/B\n" + other).empty());
  // A receipt's lines as read (the 200's 630): its branch "1132-PJ $56" is 6 edits from a listed
  // branch's "1076-IJOK", within the 7 a 57-letter address allows; the head office is nearer.
  const KnownNames chain = KnownNames::from_text(
      "99 SPEED MART S/B\t" + head + "\n99 SPEED MART S/B\t" + head + " 1076-IJOK\n", "c.txt");
  const std::string read =
      "99 SPEED MART S/B (519537-X)\nLOT P.T. 2811, JALAN ANGSA,\nTAMAN BERKELEY\n41150 KLANG, "
      "SELANGOR\n1132-PJ $56\n6ST ID. NO: 000181747712\n";
  CHECK_FALSE(chain.find_address("99 SPEED MART S/B", head, read));
  CHECK_THROWS_WITH_AS(KnownNames::from_text("ACME\t---\n", "v.txt"),
                       "v.txt:1: the address '---' has no letter or digit", docsift::ConfigError);
}

TEST_CASE(
    "OCR engine with known sellers: the list's spelling, its evidence, and what was read kept in "
    "checks") {
  const std::vector<std::string> lines = {"SANYO STATIONERY SHOP",
                                          "NO. 31G JALAN SETIA INDAH",
                                          "DATE 19/10/2017",
                                          "TOTAL RM 12.00",
                                          "CASH 20.00",
                                          "CHANGE 8.00"};
  const auto without = read_with_list(lines, "");
  REQUIRE(without.fields.at("SUPPLIER") == "SANYO STATIONERY SHOP");
  CHECK_FALSE(without.evidence.at("SUPPLIER").known);
  CHECK_FALSE(without.evidence.at("SUPPLIER").listed);

  const auto with = read_with_list(lines, "SANYU STATIONERY SHOP\n");
  CHECK(with.fields.at("SUPPLIER") == "SANYU STATIONERY SHOP");
  const auto& e = with.evidence.at("SUPPLIER");
  CHECK(e.known);
  CHECK(e.listed);
  CHECK(e.repaired);
  CHECK(with.info["checks"]["supplier_from_list"]["read"] == "SANYO STATIONERY SHOP");
  CHECK(with.info["checks"]["supplier_from_list"]["edits"] == 1);
  CHECK(docsift::ocr::feature_values(e).at("known") == 1.0);
  CHECK(with.fields.at("TOTAL") == without.fields.at("TOTAL"));  // the list is the seller's alone
  CHECK(with.probability.at("SUPPLIER") > 0);

  // A list without this seller: the value as read, marked as not in the list.
  const auto r = read_with_list(lines, "GARDENIA BAKERIES (KL) SDN BHD\n");
  CHECK(r.fields.at("SUPPLIER") == "SANYO STATIONERY SHOP");
  CHECK_FALSE(r.evidence.at("SUPPLIER").known);
  CHECK(r.evidence.at("SUPPLIER").listed);
}

TEST_CASE(
    "OCR engine with known sellers: a listed name on another line is taken over the rules' choice, "
    "with that line's box") {
  // The rules take the top line with a company form; the listed seller is printed lower down.
  const std::vector<std::string> lines = {"PUSAT DAGANGAN SDN BHD", "DATE 19/10/2017",
                                          "TOTAL RM 12.00", "THANK YOU",
                                          "TED HENG STATIONERY & BOOKS"};
  REQUIRE(read_with_list(lines, "").fields.at("SUPPLIER") == "PUSAT DAGANGAN SDN BHD");
  const auto r = read_with_list(lines, "TEO HENG STATIONERY & BOOKS\n");
  CHECK(r.fields.at("SUPPLIER") == "TEO HENG STATIONERY & BOOKS");
  const auto& e = r.evidence.at("SUPPLIER");
  CHECK(e.known);
  CHECK(e.repaired);
  CHECK(e.box.top == 200);  // the fifth line's
  CHECK(r.info["checks"]["supplier_from_list"]["read"] == "PUSAT DAGANGAN SDN BHD");
}

TEST_CASE("OCR engine with known sellers: the seller's listed address, as the list spells it") {
  const std::vector<std::string> fields = {"SUPPLIER", "BUSINESS_ADDRESS", "TOTAL"};
  const std::vector<std::string> lines = {"SANYO STATIONERY SHOP", "NO. 31G833G, JALAN SETIA INDAH",
                                          "40170 SETIA ALAM, SELANGOR", "DATE 19/10/2017",
                                          "TOTAL RM 12.00"};
  const auto without = read_with_list(lines, "", fields);
  const std::string read = without.fields.at("BUSINESS_ADDRESS");
  REQUIRE(read.find("31G833G") != std::string::npos);
  CHECK_FALSE(without.evidence.at("BUSINESS_ADDRESS").listed);

  const std::string listed = "NO. 31G&33G, JALAN SETIA INDAH, 40170 SETIA ALAM, SELANGOR";
  const auto with = read_with_list(lines, "SANYU STATIONERY SHOP\t" + listed + "\n", fields);
  CHECK(with.fields.at("BUSINESS_ADDRESS") == listed);
  const auto& e = with.evidence.at("BUSINESS_ADDRESS");
  CHECK(e.known);
  CHECK(e.listed);
  CHECK(e.repaired);
  CHECK(with.info["checks"]["address_from_list"]["read"] == read);
  CHECK(docsift::ocr::feature_values(e).at("known") == 1.0);

  // Another address of the seller's: the value as read, marked as read with a list.
  const auto other = read_with_list(
      lines, "SANYU STATIONERY SHOP\tLOT 5, JALAN KLANG LAMA, 58000 KUALA LUMPUR\n", fields);
  CHECK(other.fields.at("BUSINESS_ADDRESS") == read);
  CHECK_FALSE(other.evidence.at("BUSINESS_ADDRESS").known);
  CHECK(other.evidence.at("BUSINESS_ADDRESS").listed);
}

TEST_CASE(
    "OCR engine with known sellers from a reviewed run: a seller spelt two ways stays as read, and "
    "company forms alone name no one") {
  // The 200 development receipts' Gardenia bakery receipts print their customer too; a list made
  // by `docsift review sellers` holds the customer (a run took it for the seller) and the bakery
  // spelt two ways. Before, the tie sent the search down the page, to the customer.
  const std::vector<std::string> lines = {"GARDENIA BAKERIES (KL) SDN BHD",
                                          "LOT 3, JALAN PELABUR 23/1",
                                          "40300 SHAH ALAM",
                                          "SDN BHD",
                                          "CASH BILL",
                                          "MAKASSAR FRESH MARKET SDN BHD",
                                          "DATE 19/10/2017",
                                          "TOTAL RM 12.00"};
  const auto r = read_with_list(lines,
                                "GARDENIA BAKERIES (KI) SDN BHD\nGARDENIA BAKERIES (KL) SDN BND\n"
                                "MAKASSAR FRESH MARKET SDN BHD\n");
  CHECK(r.fields.at("SUPPLIER") == "GARDENIA BAKERIES (KL) SDN BHD");
  CHECK_FALSE(r.evidence.at("SUPPLIER").known);
  CHECK(r.evidence.at("SUPPLIER").listed);
  bool tied = false;
  CHECK_FALSE(KnownNames::from_text("ALPHA TRADING SDN BHD\nALPHA TRADINO SDN BHD\n", "t.txt")
                  .find_in("ALPHA TRADINQ SDN BHD", &tied));
  CHECK(tied);

  // "SDN BHD" listed alone (a seller read as its company form and accepted): never a seller, on
  // the value or on a line of its own.
  const auto forms =
      read_with_list({"CITY HARDWARE", "SDN BHD", "DATE 19/10/2017", "TOTAL RM 12.00"},
                     "SDN BHD\nCITY HARDWARE TRADING\n");
  CHECK(forms.fields.at("SUPPLIER") != "SDN BHD");
  CHECK_FALSE(forms.evidence.at("SUPPLIER").known);
}
