"""gradcli.lang.metered_methods: the str, bytes, int and list methods that can grow a result,
each refused past its limit before it builds anything (tests/hostile runs them from programs)."""

import pytest

from gradcli.lang import limits
from gradcli.lang.metered_methods import (CLASS_METHODS, METERED_METHODS, STRING_METHODS,
                                          format_field, safe_format)


def test_each_growing_method_is_refused_past_the_item_limit():
    big = limits.MAX_ITEMS // 2 + 1
    with pytest.raises(MemoryError, match="GRADCLI_MAX_ITEMS"):
        STRING_METHODS["replace"]("a" * 3, "", "x" * big)
    with pytest.raises(MemoryError, match="GRADCLI_MAX_ITEMS"):
        STRING_METHODS["join"]("-", ["x" * big, "y" * big])
    with pytest.raises(MemoryError, match="GRADCLI_MAX_ITEMS"):
        STRING_METHODS["upper"]("x" * big)
    with pytest.raises(MemoryError, match="GRADCLI_MAX_ITEMS"):
        METERED_METHODS[(int, "to_bytes")](1, limits.MAX_ITEMS + 1, "big")
    with pytest.raises(MemoryError, match="GRADCLI_MAX_ITEMS"):
        METERED_METHODS[(list, "extend")]([0] * big, [1] * big)


def test_within_the_limits_they_are_python_s_methods():
    assert STRING_METHODS["replace"]("abc", "b", "xx") == "axxc"
    assert STRING_METHODS["join"]("-", iter("abc")) == "a-b-c"
    assert STRING_METHODS["ljust"]("a", 3, ".") == "a.."
    assert STRING_METHODS["format"]("{0}{x}", 1, x=2) == "12"
    assert METERED_METHODS[(int, "from_bytes")](int, b"\x01\x00", "big") == 256
    assert CLASS_METHODS == {"from_bytes", "fromkeys"}
    assert METERED_METHODS[(dict, "fromkeys")](dict, "ab", 0) == {"a": 0, "b": 0}
    values = [1]
    METERED_METHODS[(list, "extend")](values, (2, 3))
    assert values == [1, 2, 3]


def test_widths_are_bounded_in_fields_format_and_padding():
    huge = limits.MAX_WIDTH + 1
    for refused in (lambda: format_field(1, None, f">{huge}"),
                    lambda: safe_format(1, f"{huge}"),
                    lambda: STRING_METHODS["rjust"]("a", huge)):
        with pytest.raises(ValueError, match="GRADCLI_MAX_WIDTH"):
            refused()
    assert format_field(1.5, "r", ">5") == "  1.5"
    assert safe_format(2, "03") == "002"


def test_str_format_reaches_attributes_through_the_guard():
    with pytest.raises(AttributeError, match="attributes starting with '_' are not allowed"):
        STRING_METHODS["format"]("{0.__class__}", 1)
