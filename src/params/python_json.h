// Hugging Face writes config.json with Python's `json` module, whose default (allow_nan=True)
// writes the non-finite floats as the bare words `NaN`, `Infinity` and `-Infinity` — not JSON
// (RFC 8259, section 6, has no such numbers), but found in real files such as Nemotron-H's
// `"time_step_limit": [0.0, Infinity]`. See Python's json module documentation ("allow_nan").
#pragma once

#include <string>

namespace openrecipes {

/// `text` with every `NaN`, `Infinity` and `-Infinity` that stands where json.dumps writes a
/// value (after `:`, `[` or `,`, or alone, and followed by `,`, `]`, `}`, white space or the end)
/// replaced by a finite JSON number of the same length, so that byte offsets stay put and a
/// strict JSON check accepts exactly what Python writes. The words inside strings, as keys, or in
/// any other spelling (`inf`, `nan`, `+Infinity`, `Infinity1`) are left as they are, and stay
/// errors.
std::string mask_python_nonfinite_numbers(const std::string& text);

}  // namespace openrecipes
