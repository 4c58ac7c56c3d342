"""Key-set URLs named by a token's `jku` header, normalised so that only an exact allowlisted
URL is ever fetched.

A prefix check is not enough: `https://ehr/keys/../evil/jwks.json` starts with `https://ehr/keys/`
and an HTTP client collapses the dot-segments before sending. So a jku is refused outright when
it has anything a normaliser would rewrite or a server might read differently (dot-segments,
percent-encoded dots or slashes, userinfo, a query, a fragment, backslashes, control or non-ASCII
characters), and what remains must equal a configured URL after lower-casing scheme and host and
dropping a default port. The service then fetches the *configured* string, never the token's.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

__all__ = ["normalise_key_set_url"]

_LOOPBACK = {"127.0.0.1", "localhost", "::1"}
_DEFAULT_PORT = {"https": 443, "http": 80}
_SAFE = re.compile(r"^[A-Za-z0-9\-._~:/\[\]@!$&'()*+,;=%]+$")  # RFC 3986 characters, no '?', '#', '\'
_ENCODED_TRICK = re.compile(r"%(2e|2f|5c|00)", re.IGNORECASE)


def normalise_key_set_url(url: str) -> str | None:
    """The canonical form of an acceptable key-set URL, or None when it must not be used.

    https only, except plain http to a loopback host (tests and same-host key servers)."""
    if not isinstance(url, str) or len(url) > 2048 or not _SAFE.match(url) or _ENCODED_TRICK.search(url):
        return None
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), (parts.hostname or "")
    if scheme not in _DEFAULT_PORT or not host or "@" in parts.netloc or parts.query or parts.fragment:
        return None
    if "?" in url or "#" in url:  # an empty query or fragment is still a trick
        return None
    if scheme == "http" and host not in _LOOPBACK:
        return None
    path = parts.path or "/"
    if not path.startswith("/") or any(seg in (".", "..") for seg in path.split("/")) or "//" in path:
        return None
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and port != _DEFAULT_PORT[scheme]:
        netloc += f":{port}"
    return f"{scheme}://{netloc}{path}"
