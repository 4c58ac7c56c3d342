"""One Settings object, built when the CLI or app starts and passed down (never at import)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["Settings"]


class Settings(BaseSettings):
    """Read from MEG_* environment variables, or a JSON/TOML file via `Settings.from_file`."""

    model_config = SettingsConfigDict(env_prefix="MEG_", extra="forbid")

    # retrieval and discovery
    lexical_backend: Literal["tantivy", "whoosh"] = "tantivy"
    # "exhaustive": every grounded occurrence goes to the contract (the default, every surface);
    # "search": the budgeted controller (core/discover/search.py), `final_contexts` candidates at most,
    # for where a budget is real (an LLM assessor's context, a dense search over a large record)
    discovery: Literal["exhaustive", "search"] = "exhaustive"
    channel_order: list[Literal["lexical", "metadata", "dense"]] = Field(default=["lexical", "metadata", "dense"])  # dense is used only when the extra is installed and `dense` is on
    dense: bool = False  # needs the `dense` extra
    d_max: int = Field(default=5, ge=1, le=20)
    r_max: int = Field(default=5, ge=0, le=20)
    k_neighbours: int = Field(default=8, ge=1, le=200)
    top_b: int = Field(default=8, ge=1, le=200)
    final_contexts: int = Field(default=12, ge=1, le=500)
    epsilon: float = Field(default=0.2, ge=0.0, le=1.0)
    notes: bool = True  # run the note NLP pipeline over DocumentReference/DiagnosticReport text
    max_note_chars: int = Field(default=200_000, ge=1_000)  # text per attachment, after HTML stripping
    # input limits (fhir_adapters/limits.py): decoded attachment bytes read before stripping, one
    # resource's JSON nesting (the hasher, orjson, stops at 255), one gzip file decompressed
    max_note_bytes: int = Field(default=2_000_000, ge=1_000)
    max_json_depth: int = Field(default=100, ge=8, le=250)
    max_inflated_bytes: int = Field(default=256 * 1024 * 1024, ge=1024)
    cache_dir: Path | None = None

    # assessor (paper Eq. 6-8): "llm" asks an OpenAI-compatible endpoint (e.g. vLLM) for the
    # judgment axes; timing and numeric axes stay deterministic (core/decide/assess_llm.py)
    assessor: Literal["deterministic", "llm"] = "deterministic"
    llm_base_url: str | None = None  # e.g. http://127.0.0.1:8000/v1
    llm_model: str | None = None  # the served model name; part of the assessment cache key
    llm_api_key: SecretStr | None = None
    llm_timeout_seconds: float = Field(default=60.0, gt=0)

    # CDS Hooks service
    public_base_url: str | None = None  # the URL the EHR calls, for JWT `aud` checks
    jwt_required: bool = True
    trusted_issuers_file: Path | None = None  # JSON: {"iss": {"jwks_file"|"jwks_url"|"jku_allowed": ...}}
    jwt_leeway_seconds: int = Field(default=10, ge=0, le=300)
    jwt_max_lifetime_seconds: int = Field(default=3600, ge=60, le=86_400)  # longest exp - iat accepted
    jwt_replay_cache_size: int = Field(default=100_000, ge=100)  # live (iss, jti) pairs remembered
    max_request_bytes: int = Field(default=8 * 1024 * 1024, ge=1024)  # request body limit (413 above)
    cors_origins: list[str] = Field(default_factory=lambda: ["*"])
    fhir_fetch_without_token: bool = False
    fhir_timeout_seconds: float = Field(default=10.0, gt=0)
    fhir_max_pages: int = Field(default=20, ge=1)
    graph_cache_size: int = Field(default=32, ge=1)
    # processed notes kept (nlp/cache.py): at most this many, and this many characters of text
    # (~100-150 bytes of memory each: 2M characters ~ 0.2-0.3 GB, the notes of ~37 Synthea records)
    note_cache_size: int = Field(default=2048, ge=0)
    note_cache_chars: int = Field(default=2_000_000, ge=0)
    # work per hook call (cds_hooks/worker_pool.py): past the deadline the call answers 503 and its
    # computation stops at its next stage; at most verify_workers computations run at once
    request_deadline_seconds: float = Field(default=20.0, gt=0, le=600)
    verify_workers: int = Field(default=4, ge=1, le=64)
    feedback_log: Path | None = None
    watchlist_path: Path | None = None
    cards_for_refuted: bool = False
    cards_for_insufficient: bool = False
    smart_app_url: str | None = None  # card link; for this service's own page: {base}/smart/launch

    # SMART-on-FHIR EHR launch (plugin/smart/launch.py): the page in the EHR
    smart_allowed_issuers: list[str] = Field(default_factory=list)  # FHIR bases (`iss`) we accept launches from
    smart_client_id: str = "medeventgraph"
    smart_redirect_url: str | None = None  # registered redirect; default {public_base_url}/smart/callback
    smart_scopes: str = "launch openid fhirUser patient/*.read"
    smart_launch_ttl_seconds: int = Field(default=600, ge=10, le=3600)  # launch -> callback
    smart_session_ttl_seconds: int = Field(default=3600, ge=60, le=86_400)
    smart_max_sessions: int = Field(default=1000, ge=1)
    # "none" for EHRs that embed the app in a cross-site iframe (then the cookie is Secure)
    smart_cookie_samesite: Literal["lax", "strict", "none"] = "lax"

    @field_validator("discovery", mode="before")
    @classmethod
    def _discovery_names(cls, v: object) -> object:
        """The names before issue 20 ("simple", "controller") still select the same paths."""
        return {"simple": "exhaustive", "controller": "search"}.get(v, v) if isinstance(v, str) else v

    @model_validator(mode="after")
    def _llm_configured(self) -> Settings:
        if self.assessor == "llm" and not (self.llm_base_url and self.llm_model):
            raise ValueError("assessor 'llm' needs llm_base_url and llm_model")
        return self

    @classmethod
    def from_file(cls, path: Path, **overrides: object) -> Settings:
        import tomllib

        import orjson

        raw = path.read_bytes()
        data = tomllib.loads(raw.decode()) if path.suffix == ".toml" else orjson.loads(raw)
        return cls(**{**data, **overrides})
