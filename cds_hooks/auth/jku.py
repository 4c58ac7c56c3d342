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

__all__ = ["key_set_url_problem", "normalise_key_set_url"]

_LOOPBACK = {"127.0.0.1", "localhost", "::1"}
_DEFAULT_PORT = {"https": 443, "http": 80}
_SAFE = re.compile(r"^[A-Za-z0-9\-._~:/\[\]@!$&'()*+,;=%]+$")  # RFC 3986 characters, no '?', '#', '\'
_ENCODED_TRICK = re.compile(r"%(2e|2f|5c|00)", re.IGNORECASE)


def _checked(url: str) -> tuple[str | None, str]:
    """(the canonical form, "") for an acceptable key-set URL, else (None, the rule it breaks)."""
    if not isinstance(url, str):
        return None, "is not a string"
    if len(url) > 2048:
        return None, "is longer than 2048 characters"
    if "?" in url or "#" in url:  # an empty query or fragment is still a trick
        return None, "has a '?' or '#' part"
    if not _SAFE.match(url):
        return None, "has characters outside RFC 3986 (a backslash, a space, a control or non-ASCII character)"
    if _ENCODED_TRICK.search(url):
        return None, "has a percent-encoded dot, slash, backslash or NUL"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None, "is not a URL (its host or port cannot be read)"
    scheme, host = parts.scheme.lower(), (parts.hostname or "")
    if scheme not in _DEFAULT_PORT or not host:
        return None, "is not an absolute https URL"
    if "@" in parts.netloc:
        return None, "has userinfo (user@host)"
    if scheme == "http" and host not in _LOOPBACK:
        return None, "is plain http to a host other than loopback"
    path = parts.path or "/"
    if not path.startswith("/") or any(seg in (".", "..") for seg in path.split("/")) or "//" in path:
        return None, "has dot-segments or an empty path segment"
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and port != _DEFAULT_PORT[scheme]:
        netloc += f":{port}"
    return f"{scheme}://{netloc}{path}", ""


def normalise_key_set_url(url: str) -> str | None:
    """The canonical form of an acceptable key-set URL, or None when it must not be used.

    https only, except plain http to a loopback host (tests and same-host key servers)."""
    return _checked(url)[0]


def key_set_url_problem(url: str) -> str | None:
    """Why `url` cannot be listed as a key-set URL (None when it can): a token's jku must equal
    it exactly, so it must be one whole URL, not a prefix of many."""
    canonical, problem = _checked(url)
    if canonical is None:
        return problem
    if url.endswith("/"):
        return "ends with '/': a prefix, not the URL of one key set"
    return None
