// Website, email and postal addresses as a reader can reach them: the review queue's "malformed"
// (review_queue.h). An address whose domain ends in no top-level domain was misread, as no such
// address exists: "www.redgum.com.du" for .au, "www.coastal.com.au-", "www.blue.com.u"; so was a
// postal address that holds a sign no address prints ("Hobart TAS 700¢").
#pragma once

#include <string_view>

namespace docsift::extract {

// Whether `label` (lower case, no dots: "au", "com") is a top-level domain of the Public Suffix
// List, as libpsl's built-in copy has it (every country code and generic domain; not its "*"
// rule, which would take any label). A brand's own domain that the list lacks ("facebook") is not.
bool is_top_level_domain(std::string_view label);

// A website as written ("www.x.com.au", "https://x.com/contact", "x.com:8080"): its host (what
// stands between the scheme and the first '/', ':', '?' or '#') is dotted labels of letters,
// digits and hyphens, none empty and none starting or ending with a hyphen, the last a top-level
// domain. Case does not matter.
bool website_well_formed(std::string_view value);

// An email address: one '@', a name before it with no space, and after it a host as a website's.
// Either host fails too where its label under a country's code is one letter off com, net, org,
// edu or gov, that one a public suffix there and it not, with a name before it other than "www"
// ("example.coim.au": a misread com.au; "www.con.au", a name registered under .au, passes).
bool email_well_formed(std::string_view value);
// Either host fails also where it has lost the stop before a generic label that its country's code
// takes ("www.harbourcom.au": a name under .au ending in "com", where com.au is a public suffix),
// or where a label has a 0 or a 1 between letters in a word of four letters or more
// ("examp1e.com.au", "g0ogle.com"): OCR's o and l, which a name spelled with digits rarely has.

// A postal address (BUSINESS_ADDRESS, PAYER_ADDRESS): valid UTF-8 with no sign that no address
// prints: a currency, maths or other symbol (Unicode's S* categories: "$", "¢", "€", "<", "|",
// "~", "©") or one of ? ! % * _ \ [ ] { } § ¶. OCR reads them from specks and misread digits.
bool postal_address_well_formed(std::string_view value);

}  // namespace docsift::extract
