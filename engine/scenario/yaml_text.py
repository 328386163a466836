"""Writing YAML that reads back exactly, for the files cronlapse writes (imports, exports).

A value goes out as JSON, which YAML 1.2 reads as the same value: every string quoted, every
mapping in flow. JSON leaves some characters raw that YAML would refuse (controls such as
``\\x7f``, lone surrogates) or read as a line break inside a quoted string (``\\x85``,
``\\u2028``, ``\\u2029``), so those go out as ``\\u`` escapes; comments are escaped the same way,
so no text can end one early.
"""

from __future__ import annotations

import json
import re

_NOT_PLAIN = re.compile("[^\t\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""What may not go out as it is: line breaks, and the characters YAML refuses."""


def escaped(text: str) -> str:
    """``text`` with each character that may not go out as it is written as its ``\\u`` escape
    (which a double-quoted YAML string reads back as that character)."""
    return _NOT_PLAIN.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def flow(value: object) -> str:
    """``value`` (JSON data) as YAML flow text that reads back as ``value``."""
    return escaped(json.dumps(value, ensure_ascii=False, separators=(", ", ": ")))
