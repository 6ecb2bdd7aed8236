#include "docsift/io/pdf.h"

#include <poppler-document.h>
#include <poppler-global.h>
#include <poppler-image.h>
#include <poppler-page-renderer.h>
#include <poppler-page.h>

#include <cmath>
#include <fstream>
#include <memory>

#include "docsift/error.h"
#include "docsift/io/decode_lock.h"

namespace docsift::io {
namespace fs = std::filesystem;
namespace {

// Every entry point holds decode_lock (decode_lock.h): Poppler's documents share global
// state. Poppler reports a damaged file's problems on stderr by default, where a log shows them
// without the file's name. Its one message hook is process-wide; while a file is opened or
// rendered, the hook keeps the first message for the thread that does it (PopplerMessages), which
// docsift then puts in its own error or the page's warning. Outside one, messages are dropped.
thread_local std::string* t_poppler_said = nullptr;

class PopplerMessages {
 public:
  PopplerMessages() : outer_(t_poppler_said) {
    static const bool hooked = [] {
      poppler::set_debug_error_function(
          [](const std::string& message, void*) {
            if (t_poppler_said != nullptr && t_poppler_said->empty())
              *t_poppler_said = message.substr(0, 300);
          },
          nullptr);
      return true;
    }();
    (void)hooked;
    t_poppler_said = &said_;
  }
  ~PopplerMessages() { t_poppler_said = outer_; }
  PopplerMessages(const PopplerMessages&) = delete;
  PopplerMessages& operator=(const PopplerMessages&) = delete;

  // "; Poppler said: ..." for an error message, or "" when it said nothing.
  std::string suffix() const { return said_.empty() ? "" : "; Poppler said: " + said_; }
  const std::string& said() const { return said_; }

 private:
  std::string* outer_;
  std::string said_;
};

std::unique_ptr<poppler::document> open(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw FileError(path.string() + ": no such PDF file");
  const PopplerMessages messages;
  std::unique_ptr<poppler::document> doc(poppler::document::load_from_file(path.string()));
  if (!doc)
    throw FileError(path.string() + ": not a readable PDF (damaged or truncated" +
                    messages.suffix() + ")");
  if (doc->is_locked()) {
    throw FileError(
        path.string() +
        ": the PDF is encrypted with a password; save an unprotected copy to process it");
  }
  return doc;
}

}  // namespace

bool is_pdf(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  char head[5] = {};
  in.read(head, sizeof head);
  return in.gcount() == 5 && std::string(head, 5) == "%PDF-";
}

int pdf_page_count(const fs::path& path) {
  const auto decoding = decode_lock();
  const int pages = open(path)->pages();
  if (pages <= 0) throw FileError(path.string() + ": the PDF has no pages");
  return pages;
}

PdfPixels render_pdf_page(const fs::path& path, int page, int dpi, const ImageLimits& limits,
                          std::string* said) {
  const auto decoding = decode_lock();
  const PopplerMessages messages;
  const auto doc = open(path);
  if (page < 0 || page >= doc->pages())
    throw FileError(path.string() + ": no page " + std::to_string(page + 1));
  const std::unique_ptr<poppler::page> p(doc->create_page(page));
  if (!p)
    throw FileError(path.string() + "#page=" + std::to_string(page + 1) +
                    ": the page cannot be read");
  // The size in points (1/72 inch) decides the pixels before anything is rendered.
  const poppler::rectf box = p->page_rect(poppler::media_box);
  const double w = std::ceil(box.width() * dpi / 72.0), h = std::ceil(box.height() * dpi / 72.0);
  if (!(w >= 1 && h >= 1) || w * h > static_cast<double>(limits.max_pixels)) {
    throw FileError(path.string() + "#page=" + std::to_string(page + 1) + ": renders to " +
                    std::to_string(static_cast<long long>(w)) + "×" +
                    std::to_string(static_cast<long long>(h)) + " pixels at " +
                    std::to_string(dpi) + " dpi, over the limit of " +
                    std::to_string(limits.max_pixels / 1'000'000) +
                    " megapixels; lower input.pdf_dpi");
  }
  poppler::page_renderer renderer;
  renderer.set_render_hints(poppler::page_renderer::antialiasing |
                            poppler::page_renderer::text_antialiasing);
  renderer.set_paper_color(0xffffffff);  // white, opaque: a page's background is paper
  renderer.set_image_format(poppler::image::format_argb32);
  const poppler::image image = renderer.render_page(p.get(), dpi, dpi);
  if (!image.is_valid() || image.format() != poppler::image::format_argb32 || image.width() <= 0 ||
      image.height() <= 0) {
    throw FileError(path.string() + "#page=" + std::to_string(page + 1) +
                    ": the page does not render" + messages.suffix());
  }
  if (said != nullptr && !messages.said().empty()) *said = "Poppler: " + messages.said();
  // ARGB32 is stored B, G, R, A per pixel on little-endian machines; rows may be padded.
  const int iw = image.width(), ih = image.height();
  PdfPixels pixels{
      iw, ih,
      std::vector<std::uint8_t>(static_cast<std::size_t>(iw) * static_cast<std::size_t>(ih) * 3)};
  std::uint8_t* out = pixels.rgb.data();
  const char* data = image.const_data();
  for (int y = 0; y < ih; ++y) {
    const auto* row = reinterpret_cast<const std::uint8_t*>(data + static_cast<std::ptrdiff_t>(y) *
                                                                       image.bytes_per_row());
    for (int x = 0; x < iw; ++x) {
      const std::uint8_t* px = row + 4 * x;
      std::uint8_t* o = out + (static_cast<std::ptrdiff_t>(y) * iw + x) * 3;
      o[0] = px[2], o[1] = px[1], o[2] = px[0];
    }
  }
  return pixels;
}

PdfText read_pdf_text(const fs::path& path, int page) {
  const auto decoding = decode_lock();
  const auto doc = open(path);
  if (page < 0 || page >= doc->pages())
    throw FileError(path.string() + ": no page " + std::to_string(page + 1));
  const std::unique_ptr<poppler::page> p(doc->create_page(page));
  if (!p)
    throw FileError(path.string() + "#page=" + std::to_string(page + 1) +
                    ": the page cannot be read");
  const poppler::rectf box = p->page_rect(poppler::media_box);
  PdfText out;
  out.width = box.width();
  out.height = box.height();
  // A hostile file can hold millions of boxes; a page of business text has a few thousand.
  constexpr std::size_t kMaxWords = 100'000;
  for (const poppler::text_box& t : p->text_list()) {
    if (out.words.size() >= kMaxWords) break;
    const poppler::byte_array utf8 = t.text().to_utf8();
    std::string text(utf8.begin(), utf8.end());
    if (text.empty()) continue;
    const poppler::rectf b = t.bbox();
    out.words.push_back({std::move(text), b.left(), b.top(), b.right(), b.bottom()});
  }
  return out;
}

}  // namespace docsift::io
