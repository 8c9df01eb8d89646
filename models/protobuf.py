"""A minimal protocol-buffers wire-format encoder, enough to write a TensorFlow GraphDef.

Only what the generators need: varints (wire type 0), length-delimited fields
(wire type 2: bytes, strings, sub-messages, packed repeated scalars).
A message is built as a list of encoded fields joined in the order they are
given, so the same calls always give the same bytes.
"""

import struct

VARINT, LEN = 0, 2


def varint(value: int) -> bytes:
    """Base-128 varint; a negative int64 is written as its 64-bit two's complement
    (10 bytes), as protobuf does for int32/int64 fields."""
    if value < 0:
        value += 1 << 64
    if not 0 <= value < 1 << 64:
        raise ValueError(f"varint out of range: {value}")
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def key(field: int, wire_type: int) -> bytes:
    return varint(field << 3 | wire_type)


def int_field(field: int, value: int) -> bytes:
    """int32/int64/enum/bool field (a bool is 0 or 1)."""
    return key(field, VARINT) + varint(int(value))


def bytes_field(field: int, data: bytes) -> bytes:
    return key(field, LEN) + varint(len(data)) + data


def str_field(field: int, text: str) -> bytes:
    return bytes_field(field, text.encode("utf-8"))


def message(field: int, *parts: bytes) -> bytes:
    """An embedded message: its encoded fields, length-delimited."""
    return bytes_field(field, b"".join(parts))


def packed_floats(field: int, values) -> bytes:
    """repeated float, packed (proto3's default): little-endian float32s."""
    return bytes_field(field, b"".join(struct.pack("<f", float(v)) for v in values))


def map_entry(field: int, map_key: str, value: bytes) -> bytes:
    """One entry of a map<string, Message>: a message with key = 1, value = 2."""
    return message(field, str_field(1, map_key), bytes_field(2, value))


def decode(data: bytes) -> list:
    """The top-level fields of a message as (field, wire_type, value) triples; value is
    an int for varints and bytes for length-delimited fields. For tests."""
    out, i = [], 0

    def read_varint():
        nonlocal i
        shift = result = 0
        while True:
            b = data[i]
            i += 1
            result |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return result

    while i < len(data):
        k = read_varint()
        field, wt = k >> 3, k & 7
        if wt == VARINT:
            out.append((field, wt, read_varint()))
        elif wt == LEN:
            n = read_varint()
            out.append((field, wt, data[i:i + n]))
            i += n
        elif wt == 5:
            out.append((field, wt, data[i:i + 4]))
            i += 4
        elif wt == 1:
            out.append((field, wt, data[i:i + 8]))
            i += 8
        else:
            raise ValueError(f"unsupported wire type {wt}")
    return out
