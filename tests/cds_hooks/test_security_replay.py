"""The replay cache: bounded, keyed by (iss, jti), entries gone at their exp; a full cache never
locks out fresh tokens, and a replay is still refused."""

from __future__ import annotations

import logging
import time
import uuid

from medeventgraph.cds_hooks.auth.replay import ReplayCache
from medeventgraph.cds_hooks.services import VERIFY

from .conftest import ISSUER, assert_outcome


def test_entries_expire_at_exp():
    cache = ReplayCache(100, leeway=10)
    assert cache.check_and_add(ISSUER, "a", exp=1000.0, now=900.0)
    assert not cache.check_and_add(ISSUER, "a", exp=1000.0, now=1005.0)  # still within the leeway
    assert cache.check_and_add(ISSUER, "b", exp=2000.0, now=1011.0)  # "a" is gone now
    assert len(cache) == 1


def test_keyed_by_issuer_and_jti():
    cache = ReplayCache(100)
    assert cache.check_and_add("https://a.example", "same", exp=2e9, now=1e9)
    assert cache.check_and_add("https://b.example", "same", exp=2e9, now=1e9)
    assert not cache.check_and_add("https://a.example", "same", exp=2e9, now=1e9)


def test_a_full_cache_still_accepts_fresh_tokens_and_refuses_replays():
    cache = ReplayCache(1000)
    now = 1e9
    # 20,000 long-lived tokens accepted by someone else: far more than the bound
    for i in range(20_000):
        assert cache.check_and_add(ISSUER, f"flood-{i}", exp=now + 3600 + i, now=now)
    assert len(cache) == 1000
    assert cache.check_and_add(ISSUER, "fresh", exp=now + 300, now=now)
    assert not cache.check_and_add(ISSUER, "fresh", exp=now + 300, now=now)
    # the most recent flood tokens are still remembered
    assert not cache.check_and_add(ISSUER, "flood-19999", exp=now + 3600 + 19_999, now=now)


def test_a_full_cache_logs_one_warning_without_issuer_or_jti(caplog):
    cache = ReplayCache(10)
    with caplog.at_level(logging.WARNING, logger="medeventgraph.cds_hooks"):
        for i in range(9):
            cache.check_and_add(ISSUER, f"jti-under-{i}", exp=2e9 + i, now=1e9)
        assert not caplog.records  # not full yet
        for i in range(50):
            cache.check_and_add(ISSUER, f"jti-flood-{i}", exp=2e9 + 100 + i, now=1e9)
    [record] = [r for r in caplog.records if r.name == "medeventgraph.cds_hooks"]
    text = record.getMessage()
    assert record.levelno == logging.WARNING and "replay cache full (10 live tokens)" in text
    assert "MEG_JWT_REPLAY_CACHE_SIZE" in text
    assert ISSUER not in text and "jti-" not in text and "ehr.test" not in text


def test_over_http_many_accepted_tokens_never_lock_out_a_fresh_one(start_service, caplog):
    svc = start_service(jwt_replay_cache_size=100)
    feedback = f"{svc.url(VERIFY)}/feedback"
    body = {"feedback": [{"card": str(uuid.uuid4()), "outcome": "accepted",
                          "outcomeTimestamp": "2024-05-01T10:00:00Z"}]}
    now = int(time.time())
    for _ in range(300):  # three times the bound, each valid for the whole hour allowed
        token = svc.keys.token(feedback, iat=now, exp=now + 3600)
        resp = svc.http.post(feedback, json=body, headers={"Authorization": f"Bearer {token}"})
        assert resp.status_code == 200, resp.text
    last = svc.keys.token(feedback)
    assert svc.http.post(feedback, json=body, headers={"Authorization": f"Bearer {last}"}).status_code == 200
    out = assert_outcome(svc.http.post(feedback, json=body, headers={"Authorization": f"Bearer {last}"}), 401)
    assert "replay" in out["issue"][0]["diagnostics"]
    # the service said the bound was reached, naming neither the issuer nor any jti
    warnings = [r.getMessage() for r in caplog.records if "replay cache full" in r.getMessage()]
    assert warnings and all(ISSUER not in w and "ehr.test" not in w for w in warnings)
