"""The values every golden file is built from, shared with Golden.java and
the Rust tests (crates/bloom/tests/interop_values.rs): SplitMix64 streams,
seed 1 for the inserted values and seed 2 for the 10^5 queries, and the
column values derived from each 64-bit draw."""

MASK = (1 << 64) - 1
QUERIES = 100_000


def splitmix(seed, n):
    """n draws of SplitMix64 from `seed`, as signed 64-bit ints (Java longs)."""
    out, state = [], seed
    for _ in range(n):
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        z ^= z >> 31
        out.append(z - (1 << 64) if z >> 63 else z)
    return out


def string(v, i):
    """The i-th string value made from draw v: hex, signed decimal, or
    non-ASCII around hex (2- and 4-byte UTF-8 sequences), so lengths vary."""
    hexa = format(v & MASK, "x")
    return [hexa, f"id-{v}", f"\u00e9-{hexa}-\U0001F4E6"][i % 3]


def int32(v):
    """The low 32 bits of v as a signed int (Java's `(int) v`)."""
    x = v & 0xFFFFFFFF
    return x - (1 << 32) if x >> 31 else x


def float32(v):
    """(v >>> 40) / 16, exact in a float."""
    return ((v & MASK) >> 40) / 16.0


def float64(v):
    """(v >>> 11) * 2^-53, exact in a double."""
    return ((v & MASK) >> 11) * 2.0**-53


def binary(v):
    """The first 1 + (v mod 8) little-endian bytes of v."""
    u = v & MASK
    return u.to_bytes(8, "little")[: 1 + u % 8]


def answers_bitmap(answers):
    """Answers as bytes, answer i in bit i % 8 of byte i / 8."""
    out = bytearray((len(answers) + 7) // 8)
    for i, a in enumerate(answers):
        if a:
            out[i // 8] |= 1 << (i % 8)
    return bytes(out)
