"""How an exported page carries its frames: JSON pieces, and every numeric array once, byte-shuffled and gzipped.

plotly serialises a numpy array as ``{"dtype": "f8", "bdata": <base64>}`` (plotly.js reads it exactly).  A page
holds 15-25 frames whose arrays repeat (the same x positions in every trace and frame), so each distinct array is
stored once, its bytes grouped by position in the number (all first bytes, then all second bytes, ...: the
exponent bytes of nearby floats then sit together and compress; about 10 % smaller than plain gzip), and the page
rebuilds the very same bytes before handing them to plotly.js as ``bdata``.  :func:`unpack` is the inverse, used by
the tests to read a page back.
"""

from __future__ import annotations

import base64
import gzip
import json
from typing import Any

import numpy as np

__all__ = ["pack", "unpack", "gzip_base64", "gunzip_base64"]


def gzip_base64(data: bytes) -> str:
    """``data`` gzipped (level 9, no timestamp: the same input gives the same text) and base64-encoded.

    Parameters
    ----------
    data : bytes
        What to encode.

    Returns
    -------
    str
        ASCII text.
    """
    return base64.b64encode(gzip.compress(data, compresslevel=9, mtime=0)).decode("ascii")


def gunzip_base64(text: str) -> bytes:
    """The inverse of :func:`gzip_base64`.

    Parameters
    ----------
    text : str
        Text written by :func:`gzip_base64`.

    Returns
    -------
    bytes
        The original bytes.
    """
    return gzip.decompress(base64.b64decode(text))


def _shuffle(raw: bytes, width: int) -> bytes:
    if width == 1:
        return raw
    return np.frombuffer(raw, dtype=np.uint8).reshape(-1, width).T.tobytes()


def _unshuffle(raw: bytes, width: int) -> bytes:
    if width == 1:
        return raw
    return np.frombuffer(raw, dtype=np.uint8).reshape(width, -1).T.tobytes()


def pack(pieces: list[str]) -> tuple[list[str], list[list[Any]], bytes]:
    """Take the typed arrays out of JSON ``pieces``.

    Parameters
    ----------
    pieces : list of str
        JSON texts that may hold plotly typed arrays ``{"dtype", "bdata"[, "shape"]}``.

    Returns
    -------
    pieces : list of str
        The same texts with each typed array replaced by ``{"$a": i[, "shape": ...]}``.
    arrays : list of [dtype, offset, length]
        Where array ``i``'s shuffled bytes lie in ``blob``.
    blob : bytes
        The arrays' bytes, each byte-shuffled, concatenated.
    """
    index: dict[tuple[str, str], int] = {}
    arrays: list[list[Any]] = []
    chunks: list[bytes] = []
    offset = 0

    def walk(obj: Any) -> Any:
        nonlocal offset
        if isinstance(obj, dict):
            if isinstance(obj.get("bdata"), str) and isinstance(obj.get("dtype"), str):
                key = (obj["dtype"], obj["bdata"])
                if key not in index:
                    raw = base64.b64decode(obj["bdata"])
                    chunk = _shuffle(raw, np.dtype(obj["dtype"]).itemsize)
                    index[key] = len(arrays)
                    arrays.append([obj["dtype"], offset, len(chunk)])
                    chunks.append(chunk)
                    offset += len(chunk)
                rest = {k: v for k, v in obj.items() if k not in ("dtype", "bdata")}
                return {"$a": index[key], **rest}
            return {k: walk(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [walk(v) for v in obj]
        return obj

    packed = [json.dumps(walk(json.loads(p)), separators=(",", ":")) for p in pieces]
    return packed, arrays, b"".join(chunks)


def unpack(pieces: list[str], arrays: list[list[Any]], blob: bytes) -> list[Any]:
    """The inverse of :func:`pack`: the pieces as objects, with their typed arrays back as plotly writes them.

    Parameters
    ----------
    pieces : list of str
        The JSON pieces :func:`pack` returned, arrays replaced by references.
    arrays : list of list
        The arrays' descriptions :func:`pack` returned.
    blob : bytes
        The arrays' bytes :func:`pack` returned.

    Returns
    -------
    list
        The pieces as Python objects.
    """
    def walk(obj: Any) -> Any:
        if isinstance(obj, dict):
            if "$a" in obj:
                dtype, offset, length = arrays[obj["$a"]]
                raw = _unshuffle(blob[offset:offset + length], np.dtype(dtype).itemsize)
                rest = {k: v for k, v in obj.items() if k != "$a"}
                return {"dtype": dtype, "bdata": base64.b64encode(raw).decode("ascii"), **rest}
            return {k: walk(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [walk(v) for v in obj]
        return obj

    return [walk(json.loads(p)) for p in pieces]
