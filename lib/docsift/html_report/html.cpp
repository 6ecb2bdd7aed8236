#include "docsift/html_report/html.h"

#include <cmath>
#include <cstdio>
#include <random>

#include "docsift/utf8.h"

namespace docsift::html_report {
namespace {

// One stylesheet for every page, inline (the report opens from the file system with nothing to
// fetch). Readable with scripts off: the order is the index's, every value is in the table.
constexpr std::string_view kStyle = R"css(
:root{--bad:#b3261e;--warn:#8a5a00;--good:#1e6b31;--line:#d6d6d6;--muted:#5f6368;--hot:#ffe08a}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1f1f1f;background:#fafafa}
header,main{padding:12px 20px}
header{background:#fff;border-bottom:1px solid var(--line)}
h1{font-size:20px;margin:0 0 4px}
h2{font-size:16px;margin:20px 0 8px}
a{color:#0b57d0}
nav a,nav span{margin-right:14px}
table{border-collapse:collapse;background:#fff;margin:4px 0 12px}
th,td{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f1f3f4;font-weight:600}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.name{white-space:pre-wrap;word-break:break-all}
.muted{color:var(--muted)}
.failed,.wrong{color:var(--bad);font-weight:600}
.review{color:var(--warn);font-weight:600}
.right{color:var(--good)}
.na{color:var(--muted);font-style:italic}
.facts{display:flex;flex-wrap:wrap;gap:8px 24px;margin:6px 0}
.facts div{min-width:110px}
.facts b{display:block;font-size:18px}
.doc{display:grid;grid-template-columns:minmax(280px,1fr) minmax(360px,1.1fr);gap:16px;align-items:start}
@media (max-width:900px){.doc{grid-template-columns:1fr}}
figure{margin:0;background:#fff;border:1px solid var(--line)}
figure svg{display:block;width:100%;height:auto}
figure .box{fill:rgba(11,87,208,.08);stroke:#0b57d0;stroke-width:3;vector-effect:non-scaling-stroke}
figure .box.review{fill:rgba(138,90,0,.10);stroke:#c58a00}
figure .box.wrong{fill:rgba(179,38,30,.10);stroke:var(--bad)}
figure .box.hot{fill:rgba(255,200,0,.35)}
figure .box.row{fill:none;stroke:#5b7f3a;stroke-width:2;stroke-dasharray:6 3}
figure text{fill:#0b57d0;font-weight:700;paint-order:stroke;stroke:#fff;stroke-width:4px}
figcaption{padding:6px 8px;border-top:1px solid var(--line)}
.swatch{display:inline-block;width:12px;height:12px;border:2px solid #0b57d0;background:rgba(11,87,208,.08);margin:0 3px 0 8px;vertical-align:middle}
.swatch.review{border-color:#c58a00;background:rgba(138,90,0,.10)}
.swatch.wrong{border-color:var(--bad);background:rgba(179,38,30,.10)}
.swatch.row{border:2px dashed #5b7f3a;background:none}
ul.checks{margin:4px 0 8px;padding-left:18px}
.corrected{color:var(--good);font-weight:600}
del{color:var(--muted)}
tr.hot td,tr:target td{background:var(--hot)}
td.value{white-space:pre-wrap;word-break:break-word;max-width:28em}
.bar{display:inline-block;height:8px;background:#0b57d0;vertical-align:middle;margin-right:4px}
.charts{display:flex;flex-wrap:wrap;gap:12px}
.charts figure{width:220px;padding:4px}
.charts svg .curve{fill:none;stroke:#0b57d0;stroke-width:1.5}
.charts svg .axis{stroke:#999;stroke-width:1;fill:none}
.charts svg .mark{stroke:var(--warn);stroke-dasharray:3 2}
.charts svg text{font-size:10px;fill:#444}
#filters{margin:6px 0}
#filters label{margin-right:12px}
th[data-key]{cursor:pointer}
pre{white-space:pre-wrap;background:#fff;border:1px solid var(--line);padding:8px;max-height:28em;overflow:auto}
)css";

// The one script: sorting and filtering the index; on a document's page, checking that its image
// is there and lighting a field's box and row together. It reads only the DOM, which holds every
// value already escaped.
constexpr std::string_view kScript = R"js(
(function(){
var docs=document.getElementById('docs');
if(docs){
  var body=docs.tBodies[0],rows=Array.prototype.slice.call(body.rows);
  var filters=document.getElementById('filters');if(filters)filters.hidden=false;
  var pick=function(id){var e=document.getElementById(id);return e?e.value:'';};
  var apply=function(){
    var s=pick('f-status'),t=pick('f-type'),f=pick('f-field'),shown=0;
    rows.forEach(function(r){
      var ok=(!s||r.dataset.status===s)&&(!t||r.dataset.type===t)&&(!f||r.dataset.fields.split(' ').indexOf(f)>=0);
      r.hidden=!ok;if(ok)shown++;});
    var out=document.getElementById('shown');if(out)out.textContent=shown+' of '+rows.length;
  };
  ['f-status','f-type','f-field'].forEach(function(id){var e=document.getElementById(id);if(e)e.addEventListener('change',apply);});
  apply();
  var heads=docs.tHead.rows[0].cells;
  Array.prototype.forEach.call(heads,function(th,col){
    if(!th.dataset.key)return;
    th.title='Sort';
    th.addEventListener('click',function(){
      var up=th.dataset.dir!=='asc';th.dataset.dir=up?'asc':'desc';
      var num=th.dataset.key==='n';
      rows.sort(function(a,b){
        var x=a.cells[col].dataset.v,y=b.cells[col].dataset.v;
        var c=num?(parseFloat(x)-parseFloat(y)):(x<y?-1:x>y?1:0);
        if(isNaN(c))c=0;return up?c:-c;});
      rows.forEach(function(r){body.appendChild(r);});
    });
  });
}
document.querySelectorAll('figure[data-src]').forEach(function(f){
  var probe=new Image();
  probe.onload=function(){f.dataset.image='loaded';};
  probe.onerror=function(){f.dataset.image='missing';
    var c=f.querySelector('figcaption');if(c)c.textContent='The page image '+f.dataset.src+' is missing from the report folder.';};
  probe.src=f.dataset.src;
});
var light=function(key,value,on){
  document.querySelectorAll('[data-'+key+']').forEach(function(e){if(e.dataset[key]===value)e.classList.toggle('hot',on);});
};
['field','row'].forEach(function(key){
  document.querySelectorAll('[data-'+key+']').forEach(function(e){
    e.addEventListener('mouseenter',function(){light(key,e.dataset[key],true);});
    e.addEventListener('mouseleave',function(){light(key,e.dataset[key],false);});
  });
});
})();
)js";

void append_escaped_char(std::string& out, char c) {
  switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
        append_utf8(out, kReplacementChar);
      } else {
        out += c;
      }
  }
}

}  // namespace

std::string escape(std::string_view text) {
  std::string valid;
  if (find_invalid_utf8(text) != kNoError) {
    append_utf8_lossy(valid, text);
    text = valid;
  }
  std::string out;
  out.reserve(text.size() + 16);
  for (const char c : text) append_escaped_char(out, c);
  return out;
}

std::string page(const Shell& shell) {
  std::string out;
  out.reserve(shell.body.size() + kStyle.size() + kScript.size() + 1024);
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  // Nothing leaves the file system: no connection, no font, no frame, no form; images only from
  // the report's own folder; the inline stylesheet; only the script that carries this nonce.
  out +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src 'self'; "
      "style-src 'unsafe-inline'; script-src 'nonce-" +
      shell.nonce + "'; base-uri 'none'; form-action 'none'\">\n";
  out += "<meta name=\"referrer\" content=\"no-referrer\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<meta name=\"generator\" content=\"docsift report\">\n";
  out += "<title>" + escape(shell.title) + "</title>\n<style>";
  out += kStyle;
  out += "</style>\n</head>\n<body>\n";
  out += shell.body;
  out += "\n<script nonce=\"" + shell.nonce + "\">";
  out += kScript;
  out += "</script>\n</body>\n</html>\n";
  return out;
}

std::string make_nonce() {
  std::random_device random;
  std::string out;
  for (int i = 0; i < 4; ++i) {
    char hex[9];
    std::snprintf(hex, sizeof hex, "%08x", static_cast<unsigned>(random()));
    out += hex;
  }
  return out;
}

std::string fixed(double value, int digits) {
  if (!std::isfinite(value)) return "";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

std::string percent(double share, int digits) { return fixed(share * 100.0, digits) + " %"; }

std::string seconds(double value) { return fixed(value, value < 10 ? 2 : 1) + " s"; }

std::string fixed_or_empty(const std::optional<double>& value, int digits) {
  return value ? fixed(*value, digits) : std::string();
}

std::string document_stem(int number) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "d%04d", number);
  return buffer;
}

}  // namespace docsift::html_report
