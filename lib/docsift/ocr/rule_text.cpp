#include "docsift/ocr/rule_text.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <tuple>
#include <utility>

#include "docsift/edit_distance.h"
#include "docsift/error.h"

namespace docsift::ocr {

using namespace detail;  // find_label (rules.h) is built from the helpers

namespace detail {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

std::size_t letters_in(std::string_view s) {
  return static_cast<std::size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }));
}

std::size_t digits_in(std::string_view s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }));
}

bool has_letters(std::string_view s) { return letters_in(s) > 0; }

// Where `phrase` occurs in `text` (both lower case) as whole words, from `from`.
std::size_t find_phrase(const std::string& text, const std::string& phrase, std::size_t from) {
  for (std::size_t at = text.find(phrase, from); at != std::string::npos;
       at = text.find(phrase, at + 1)) {
    const bool starts = at == 0 || !word_char(text[at - 1]) || !word_char(phrase.front());
    const std::size_t end = at + phrase.size();
    const bool ends = end == text.size() || !word_char(text[end]) || !word_char(phrase.back());
    if (starts && ends) return at;
  }
  return std::string::npos;
}

// A word as the fuzzy match compares it: letters and digits only ("(inc" → "inc", "gst)" → "gst",
// "“billed:" → "billed"): of the bytes over 0x7f, a letter's kept, the quotes, dashes and bullets
// of UTF-8's E2 80 xx (U+2000-U+203F) and the guillemets dropped.
std::string alnum_of(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    const auto next = i + 1 < s.size() ? static_cast<unsigned char>(s[i + 1]) : 0;
    if (c == 0xE2 && next == 0x80 && i + 2 < s.size()) {
      i += 2;
    } else if (c == 0xC2 && (next == 0xAB || next == 0xBB)) {
      i += 1;
    } else if (word_char(s[i]) || c >= 0x80) {
      out += s[i];
    }
  }
  return out;
}

std::vector<Piece> pieces_of(const std::string& text) {
  std::vector<Piece> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    const std::size_t b = i;
    while (i < text.size() && text[i] != ' ') ++i;
    if (i > b) {
      std::string w = alnum_of(std::string_view(text).substr(b, i - b));
      if (!w.empty()) out.push_back({std::move(w), b, i});
    }
  }
  return out;
}

bool strokes_misread(std::string_view read, std::string_view word) {
  // The shorter of the two holds the "m" where the longer holds two strokes.
  const bool m_split = read.size() == word.size() + 1;
  if (!m_split && word.size() != read.size() + 1) return false;
  const std::string_view one = m_split ? word : read, two = m_split ? read : word;
  std::size_t at = 0;
  while (at < one.size() && one[at] == two[at]) ++at;
  if (at == one.size() || one[at] != 'm' || one.substr(at + 1) != two.substr(at + 2)) return false;
  const std::string_view strokes = two.substr(at, 2);
  return m_split ? strokes == "rn" || strokes == "ni" || strokes == "in" || strokes == "nn"
                 : strokes == "rn";
}

// One label word against one OCR word: equal, or one edit apart when the label word has 5 letters
// or more (shorter words would match too much: "tax" and "tex", "date" and "data"), or an "m" of it
// read as strokes ("Aniount Due"). An accent counts as no edit: OCR drops some of a word's and
// keeps others ("Échéance" read "Echéance"), each two bytes from the letter it marks.
bool word_matches(const std::string& label_word, const std::string& word) {
  if (label_word == word) return true;
  if (label_word.size() < 5) return false;
  if (edit_distance(label_word, word, 1) <= 1 || strokes_misread(word, label_word)) return true;
  // Marks stripped shorten a word by its bytes over 0x7f at most: words further apart stay apart.
  const auto high = [](const std::string& s) {
    return static_cast<std::size_t>(std::count_if(
        s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; }));
  };
  const std::size_t marks = high(label_word) + high(word),
                    longer = std::max(label_word.size(), word.size());
  return marks > 0 && longer - std::min(label_word.size(), word.size()) <= marks + 1 &&
         edit_distance(casefold(label_word, true), casefold(word, true), 1) <= 1;
}

}  // namespace detail

namespace detail {

// A possessive after a label's last word ("CUSTOMER'S COPY", "Merchant’s copy") makes it a
// word of something else, not a label with its value.
bool possessive_at(const std::string& lowered, std::size_t end) {
  for (const std::string_view mark : {std::string_view("'s"), std::string_view("\u2019s")}) {
    if (lowered.compare(end, mark.size(), mark) == 0) {
      const std::size_t after = end + mark.size();
      return after >= lowered.size() || !word_char(lowered[after]);
    }
  }
  return false;
}

// find_label over the text's words split once (label_hits tries some 500 labels on a segment).
std::vector<std::pair<std::size_t, std::size_t>> find_label_in(const std::string& lowered,
                                                               const std::vector<Piece>& have,
                                                               const std::string& label,
                                                               bool fuzzy) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t at = find_phrase(lowered, label); at != std::string::npos;
       at = find_phrase(lowered, label, at + 1)) {
    if (!possessive_at(lowered, at + label.size())) out.emplace_back(at, at + label.size());
  }
  // Word by word: a label of several words with a speck or a colon between them ("Billed: to:")
  // even when matched exactly; with one edit in a long word when fuzzy.
  const std::vector<Piece> want = pieces_of(label);
  if (want.empty() || (!fuzzy && want.size() < 2) ||
      (fuzzy &&
       std::none_of(want.begin(), want.end(), [](const Piece& p) { return p.word.size() >= 5; })))
    return out;
  for (std::size_t i = 0; i + want.size() <= have.size(); ++i) {
    bool all = true;
    for (std::size_t k = 0; k < want.size() && all; ++k)
      all = fuzzy ? word_matches(want[k].word, have[i + k].word) : want[k].word == have[i + k].word;
    if (!all) continue;
    const std::size_t b = have[i].begin, e = have[i + want.size() - 1].end;
    // The last word read with its possessive ("customer's" against "customer").
    const std::string_view last_word = std::string_view(lowered).substr(
        have[i + want.size() - 1].begin, e - have[i + want.size() - 1].begin);
    const auto ends_with = [&](std::string_view mark) {
      return last_word.size() > mark.size() &&
             last_word.substr(last_word.size() - mark.size()) == mark;
    };
    if (possessive_at(lowered, e) || ends_with("'s") || ends_with("\u2019s")) continue;
    if (std::none_of(out.begin(), out.end(),
                     [&](const auto& r) { return r.first < e && b < r.second; }))
      out.emplace_back(b, e);
  }
  return out;
}

}  // namespace detail

std::vector<std::pair<std::size_t, std::size_t>> find_label(const std::string& lowered,
                                                            const std::string& label, bool fuzzy) {
  return find_label_in(lowered, pieces_of(lowered), label, fuzzy);
}

namespace detail {

// A name's label joined by a hyphen to another word is a part of a compound, a column heading
// ("Art-Nr-Lieferant": the supplier's article number) or an identifier's label ("Lieferant-Nr"),
// not a label the name follows.
bool in_compound(const std::string& lowered, std::size_t at, std::size_t end) {
  const bool joined_before = at >= 2 && lowered[at - 1] == '-' && word_char(lowered[at - 2]);
  const bool joined_after =
      end + 1 < lowered.size() && lowered[end] == '-' && word_char(lowered[end + 1]);
  return joined_before || joined_after;
}

// A name's label followed by a word that makes it part of another phrase ("(HN Customer
// Service)" on a telephone line, "CUSTOMER COPY"): ocr-rules.yaml's party_label_phrases.
bool in_phrase(const std::string& lowered, std::size_t end, const Rules& rules) {
  const std::vector<Piece> after = pieces_of(lowered.substr(end));
  return !after.empty() &&
         std::find(rules.party_label_phrases.begin(), rules.party_label_phrases.end(),
                   after.front().word) != rules.party_label_phrases.end();
}

std::vector<Hit> label_hits(const std::string& lowered, const Rules& rules) {
  std::vector<Hit> all;
  const std::vector<Piece> words = pieces_of(lowered);
  for (std::size_t r = 0; r < rules.fields.size(); ++r) {
    const LabelRule& rule = rules.fields[r];
    for (std::size_t l = 0; l < rule.labels.size(); ++l) {
      // Misread labels are looked for where a misreading costs a value: amounts and dates. A name
      // label read fuzzily would eat names ("Supplies" is one edit from "supplier").
      const bool fuzzy = rule.kind != "name";
      for (const auto& [at, end] : find_label_in(lowered, words, rule.labels[l], fuzzy)) {
        if (rule.kind == "name" &&
            (in_compound(lowered, at, end) || in_phrase(lowered, end, rules)))
          continue;
        const bool edited = alnum_of(lowered.substr(at, end - at)) != alnum_of(rule.labels[l]);
        all.push_back({r, at, end, rule.strength[l], 0, edited});
      }
    }
  }
  // Longest first at each place; then drop every hit overlapping one kept.
  std::sort(all.begin(), all.end(), [](const Hit& a, const Hit& b) {
    return a.end - a.at != b.end - b.at ? a.end - a.at > b.end - b.at : a.at < b.at;
  });
  std::vector<Hit> kept;
  for (const auto& h : all) {
    const bool overlaps = std::any_of(kept.begin(), kept.end(),
                                      [&](const Hit& k) { return h.at < k.end && k.at < h.end; });
    if (!overlaps) kept.push_back(h);
  }
  std::sort(kept.begin(), kept.end(), [](const Hit& a, const Hit& b) { return a.at < b.at; });
  // "Total RM Incl. of GST 11.80": the tax word qualifies the total before it; it is not a label
  // of its own whose value would end the total's.
  for (std::size_t i = 0; i + 1 < kept.size(); ++i) {
    const std::string& field = rules.fields[kept[i].rule].field;
    const std::string between = lowered.substr(kept[i].end, kept[i + 1].at - kept[i].end);
    // Likewise a payment word qualifies a payment line: "Change (Cash) : 0.70", "Payment (Cash)".
    const std::string& next = rules.fields[kept[i + 1].rule].field;
    const bool qualifier =
        ((field == "TOTAL" || field == "SUBTOTAL" || field == "_NOT_TOTAL") && next == "GST") ||
        ((field == "_CHANGE" || field == "_TENDERED") && next == "_TENDERED");
    if (qualifier && between.size() <= 16 && find_amounts(between, rules.lexicon).empty()) {
      kept[i].end = kept[i + 1].end;
      kept.erase(kept.begin() + static_cast<long>(i) + 1);
    }
  }
  for (std::size_t i = 0; i < kept.size(); ++i)
    kept[i].value_end = i + 1 < kept.size() ? kept[i + 1].at : lowered.size();
  return kept;
}

namespace {

using Parsed = std::optional<std::string>;

// A name with each zero OCR read in a word of letters as the O it is ("Liam 0'Connor", "J0rdan"):
// upper case where it begins the word or stands between capitals, else lower. A word with another
// digit, or fewer than two letters, keeps its zeros ("3M", "Studio 54", "Room 101", "O2").
std::string zeros_as_letters(std::string name) {
  for (std::size_t begin = 0; begin < name.size();) {
    std::size_t end = name.find(' ', begin);
    if (end == std::string::npos) end = name.size();
    int letters = 0, others = 0;
    for (std::size_t k = begin; k < end; ++k) {
      const auto c = static_cast<unsigned char>(name[k]);
      letters += std::isalpha(c) != 0 ? 1 : 0;
      others += std::isdigit(c) != 0 && c != '0' ? 1 : 0;
    }
    for (std::size_t k = begin; letters >= 2 && others == 0 && k < end; ++k) {
      if (name[k] != '0') continue;
      const bool upper =
          k == begin ||
          (std::isupper(static_cast<unsigned char>(name[k - 1])) != 0 &&
           (k + 1 == end || std::islower(static_cast<unsigned char>(name[k + 1])) == 0));
      name[k] = upper ? 'O' : 'o';
    }
    begin = end + 1;
  }
  return name;
}

Parsed labelled_date(const std::string& text, const Lexicon& lexicon, DateOrder order) {
  if (auto d = parse_date(text, lexicon, order)) return d;
  // A labelled date whose first separator OCR lost ("Date: 1303/2018", 13/03/2018). Only under
  // a date label: "1303/2018" alone is as likely an invoice number.
  static const std::regex kJoined(R"((^|[^\d])(\d{2})(\d{2})([/.-])(\d{4})([^\d]|$))");
  std::smatch m;
  if (!std::regex_search(text, m, kJoined)) return std::nullopt;
  return parse_date(m[2].str() + m[4].str() + m[3].str() + m[4].str() + m[5].str(), lexicon, order);
}

// What a value beside a label of each kind (ocr-rules.yaml's `kind:`) must parse as: one row per
// kind, so a field of a known kind needs only its YAML entry.
struct KindRow {
  std::string_view kind;
  Parsed (*parse)(const std::string& text, const Lexicon& lexicon, DateOrder order);
};
constexpr std::array<KindRow, 10> kKindTable{{
    {"abn", [](const std::string& t, const Lexicon&, DateOrder) -> Parsed { return parse_abn(t); }},
    {"date", &labelled_date},
    {"period",
     [](const std::string& t, const Lexicon& l, DateOrder o) -> Parsed {
       return parse_period(t, l, o);
     }},
    {"amount",
     [](const std::string& t, const Lexicon& l, DateOrder) -> Parsed {
       return parse_amount(t, l);
     }},
    {"bsb", [](const std::string& t, const Lexicon&, DateOrder) -> Parsed { return parse_bsb(t); }},
    {"account",
     [](const std::string& t, const Lexicon&, DateOrder) -> Parsed { return parse_account(t); }},
    {"phone",
     [](const std::string& t, const Lexicon&, DateOrder) -> Parsed { return parse_phone(t); }},
    {"email",
     [](const std::string& t, const Lexicon&, DateOrder) -> Parsed { return parse_email(t); }},
    // name: words with letters, not another label's value form. Specks OCR read before it, words
    // of nothing but marks (". Aisha Rahman", "~~ Mei Chen"), are no part of it.
    {"name",
     [](const std::string& t, const Lexicon& lexicon, DateOrder) -> Parsed {
       static const std::regex kMarks(R"(^(?:[!-/:-@\[-`{-~]+ )+)");
       const std::string name = std::regex_replace(clean_text(t), kMarks, "");
       if (!has_letters(name) || parse_email(name) || parse_phone(name) ||
           looks_like_address(name, lexicon))
         return std::nullopt;
       return zeros_as_letters(name);
     }},
    // text: whatever follows the label, as printed (a reference, an order number, a plate).
    {"text",
     [](const std::string& t, const Lexicon&, DateOrder) -> Parsed {
       const std::string text = clean_text(t);
       if (std::none_of(text.begin(), text.end(), word_char)) return std::nullopt;
       return text;
     }},
}};

}  // namespace

bool known_kind(std::string_view kind) {
  return std::any_of(kKindTable.begin(), kKindTable.end(),
                     [&](const KindRow& row) { return row.kind == kind; });
}

std::string kind_names() {
  std::string out;
  for (const KindRow& row : kKindTable) append_joined(out, ", ", std::string(row.kind));
  return out;
}

std::optional<std::string> parse_kind(const std::string& kind, const std::string& text,
                                      const Lexicon& lexicon, DateOrder order) {
  for (const KindRow& row : kKindTable) {
    if (row.kind == kind) return row.parse(text, lexicon, order);
  }
  return std::nullopt;  // "none": _NOT_TOTAL's labels read no value
}

// A postcode: four or five digits on their own.
const std::regex kPostcode(R"((^|[^\d])\d{4,5}([^\d]|$))");

bool address_cut(const std::string& address) {
  static const std::regex kStartsAtPostcode(R"(^\s*\d{4,5}([^\d]|$))");
  const std::size_t last = address.find_last_not_of(" \t");
  return !std::regex_search(address, kPostcode) || std::regex_search(address, kStartsAtPostcode) ||
         (last != std::string::npos && address[last] == ',');
}

std::vector<Segment> segments_of(const Page& page, const Rules& rules) {
  std::vector<Segment> out;
  for (std::size_t i = 0; i < page.lines.size(); ++i) {
    const Line& line = page.lines[i];
    const double gap = kColumnGap * std::max(1, line.box.height());
    std::size_t start = 0;
    for (std::size_t k = 1; k <= line.words.size(); ++k) {
      if (k < line.words.size() && line.words[k].box.left - line.words[k - 1].box.right <= gap)
        continue;
      Segment seg{{},
                  {},
                  {},
                  i,
                  line.block,
                  line.box.top,
                  line.words[start].box.left,
                  line.words[k - 1].box.right};
      std::vector<int> heights;
      double confidence = 0;
      for (std::size_t w = start; w < k; ++w) {
        append_joined(seg.text, " ", line.words[w].text);
        // A descender ("p", "y") or a bracket makes a word's box taller than its letters.
        const std::string& t = line.words[w].text;
        const bool tall = t.find_first_of("gjpqy()[]{}|,;") != std::string::npos;
        heights.push_back(tall ? line.words[w].box.height() * 4 / 5 : line.words[w].box.height());
        confidence += line.words[w].confidence;
      }
      seg.height = median_of(std::move(heights));
      seg.confidence = confidence / static_cast<double>(k - start);
      seg.lowered = lowercase(seg.text);
      seg.hits = label_hits(seg.lowered, rules);
      out.push_back(std::move(seg));
      start = k;
    }
  }
  return out;
}

}  // namespace detail

}  // namespace docsift::ocr
