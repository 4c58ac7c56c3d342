"""The SMART launch's small parts: PKCE, the expiring store, the page template."""

from __future__ import annotations

import base64
import hashlib

from medeventgraph.smart.banner import Banner
from medeventgraph.smart.oauth import pkce_pair
from medeventgraph.smart.page import PageContext, render_page
from medeventgraph.smart.store import TtlStore


def test_pkce_pair_is_s256_of_the_verifier():
    verifier, challenge = pkce_pair()
    assert 43 <= len(verifier) <= 128
    expected = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    assert challenge == expected
    assert pkce_pair()[0] != verifier


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_store_expires_bounds_and_pops_once():
    clock = Clock()
    store: TtlStore[int] = TtlStore(10, max_items=2, clock=clock)
    store.put("a", 1)
    clock.now = 1
    store.put("b", 2)
    store.put("c", 3)  # full: "a", closest to expiry, goes
    assert store.get("a") is None and store.get("b") == 2 and len(store) == 2
    assert store.pop("b") == 2 and store.pop("b") is None
    store.put("d", 4, ttl_seconds=2)  # a shorter deadline (token expires_in) wins
    clock.now = 3.5
    assert store.get("d") is None and store.get("c") == 3
    clock.now = 11.5
    assert store.get("c") is None and len(store) == 0


def test_page_context_cannot_break_out_of_its_script_block():
    # the banner carries the record's own words (a name is free text): escaped like the rest
    banner = Banner(patient="Ada</script><script>alert(2)</script>", born="9 Apr 1961")
    resp = render_page(PageContext(patient="p1</script><script>alert(1)</script>", encounter=None,
                                   fhir_user=None, banner=banner, csrf_token="t", default_scope="patient"))
    html = resp.body.decode()
    assert "</script><script>alert(1)" not in html and "</script><script>alert(2)" not in html
    nonce = resp.headers["content-security-policy"].split("'nonce-")[1].split("'")[0]
    assert f'<script nonce="{nonce}">' in html and "{{" not in html


def test_the_banner_reads_fhir_user_only_as_a_person_on_the_launch_server():
    import httpx
    from medeventgraph.cds_hooks.fhir_client import FhirClient
    from medeventgraph.smart.banner import _user_ref

    client = FhirClient("https://ehr.example/fhir", httpx.AsyncClient(), "token", 5, 1)
    assert _user_ref(client, "Practitioner/7") == "Practitioner/7"
    assert _user_ref(client, "https://ehr.example/fhir/Practitioner/7") == "Practitioner/7"
    # the session's token is never sent to another server, nor to read anything but a person
    assert _user_ref(client, "https://other.example/fhir/Practitioner/7") is None
    assert _user_ref(client, "https://ehr.example/other/Practitioner/7") is None
    assert _user_ref(client, "Observation/1") is None and _user_ref(client, "Practitioner/7/_history/2") is None
    assert _user_ref(client, None) is None
