// Website and email addresses as a reader can reach them: the review queue's "malformed"
// (review_queue.h). An address whose domain ends in no top-level domain was misread, as no such
// address exists: "www.redgum.com.du" for .au, "www.coastal.com.au-", "www.blue.com.u".
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

}  // namespace docsift::extract
