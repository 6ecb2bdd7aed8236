// The pieces every page of the HTML report is made of (docs/report.md): escaping, the page shell
// with its one stylesheet and script inline, and number formatting. Every string that came from a
// page, a file name, a journal or the truth goes through escape() on its way into a page: it is
// text in the DOM, never markup, whatever it holds (`<script>`, quotes, a newline, bytes that are
// not UTF-8).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace docsift::html_report {

// `text` as HTML text or as a double-quoted attribute's value: & < > " ' as character references,
// bytes that are not UTF-8 as U+FFFD, and control characters other than tab and newline as U+FFFD
// (a NUL or an escape sequence is nothing a reader can act on, and the HTML parser would mangle
// it anyway).
std::string escape(std::string_view text);

// The report's pages share one shell: a strict Content-Security-Policy (nothing is fetched from
// anywhere but the report's own folder, and no script runs but the page's own, which carries
// `nonce`), the stylesheet inline, then `body`, then the script inline. `title` is escaped here.
struct Shell {
  std::string title;
  std::string nonce;  // one per report (report.cpp): a planted <script> never has it
  std::string body;   // HTML, already escaped where it needs to be
};
std::string page(const Shell& shell);

// A fresh nonce for the pages' script: 128 random bits as hex.
std::string make_nonce();

// Numbers as the pages print them: "0.966", "96.6 %", "1.23 s"; "" for nullopt.
std::string fixed(double value, int digits = 3);
std::string percent(double share, int digits = 1);
std::string seconds(double value);
std::string fixed_or_empty(const std::optional<double>& value, int digits = 3);

// The files of a report folder (docs/report.md, "The folder"): index.html, and per document
// (numbered in the index's order from 1) pages/dNNNN.html and img/dNNNN.jpg, plus
// img/dNNNN.full.jpg with --full-pages. A marker names the folder as a report's, so that a later
// report may replace it.
inline constexpr std::string_view kIndex = "index.html";
inline constexpr std::string_view kPagesDir = "pages";
inline constexpr std::string_view kImagesDir = "img";
inline constexpr std::string_view kMarker = ".docsift-report";
std::string document_stem(int number);  // "d0007"

}  // namespace docsift::html_report
