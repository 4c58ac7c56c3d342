"""`medeventgraph` command line: verify, timeline, notes, schema, serve, eval, screen.

Input problems are printed as FHIR OperationOutcome JSON on stderr with exit status 2;
in a batch, a bad query becomes an error line and the batch goes on. Something a command needs
and lacks (an extra, the LLM endpoint: preflight.py) is one line on stderr, exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
from medeventgraph.model.outcome import InputError, Issue, operation_outcome
from medeventgraph.model.settings import Settings
from medeventgraph.model.version import __version__
from medeventgraph.preflight import Unavailable, check_needs
from pydantic import ValidationError

__all__ = ["main"]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="medeventgraph", description=__doc__.splitlines()[0])
    p.add_argument("--version", action="version", version=f"medeventgraph {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    def inputs(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--bundle", action="append", required=True, metavar="PATH",
                        help="FHIR Bundle/resource JSON, NDJSON (.gz) file, or a folder of them; repeatable")
        sp.add_argument("--patient", help="patient id when the input holds several patients")
        sp.add_argument("--config", type=Path, help="settings file (JSON or TOML); MEG_* env vars also apply")
        sp.add_argument("--no-notes", action="store_true", help="skip the note NLP pipeline")

    v = sub.add_parser("verify", help="verify one query or a batch")
    inputs(v)
    what = v.add_mutually_exclusive_group(required=True)
    what.add_argument("--query", help="query JSON, or @FILE holding it")
    what.add_argument("--question", help="free-text question, e.g. 'Was AKI documented after vancomycin?'")
    what.add_argument("--queries", type=Path, help="JSONL file: one query (or {'id','question'}) per line")
    v.add_argument("--out", type=Path, help="with --queries: JSONL output file (default stdout)")
    v.add_argument("--format", choices=["json", "table"], default="json")
    v.add_argument("--lexical", choices=["tantivy", "whoosh"], help="lexical retrieval backend")

    t = sub.add_parser("timeline", help="print a patient's events in time order")
    inputs(t)
    t.add_argument("--kind", action="append", help="only these kinds (medication, lab, condition, ...)")
    t.add_argument("--format", choices=["table", "json"], default="table")

    from medeventgraph.cli.notes import add_notes_parser

    add_notes_parser(sub)

    s = sub.add_parser("schema", help="print a JSON Schema")
    s.add_argument("which", choices=["query", "verdict"])

    sv = sub.add_parser("serve", help="run the CDS Hooks service")
    sv.add_argument("--host", default="127.0.0.1")
    sv.add_argument("--port", type=int, default=8080)
    sv.add_argument("--config", type=Path)

    sub.add_parser("eval", help="run the evaluation protocols (see benchmarks/README.md)", add_help=False)

    from medeventgraph.screen.cli import add_parser as add_screen

    add_screen(sub)
    return p


def _settings(args: argparse.Namespace) -> Settings:
    overrides: dict[str, Any] = {}
    if getattr(args, "no_notes", False):
        overrides["notes"] = False
    if getattr(args, "lexical", None):
        overrides["lexical_backend"] = args.lexical
    if getattr(args, "config", None):
        return Settings.from_file(args.config, **overrides)
    return Settings(**overrides)


def _fail(issue: Issue, code: int = 2) -> int:
    sys.stderr.write(orjson.dumps(operation_outcome([issue]), option=orjson.OPT_INDENT_2).decode() + "\n")
    return code


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["eval"]:
        from medeventgraph.evaluation import main as eval_main

        return int(eval_main(argv[1:]) or 0)
    args = build_parser().parse_args(argv)
    try:
        if args.command == "schema":
            return _schema(args.which)
        settings = _settings(args)
        check_needs(args.command, settings)
        if args.command == "serve":
            from medeventgraph.app import run

            run(args.host, args.port, settings)
            return 0
        if args.command == "screen":
            from medeventgraph.screen.cli import screen_command

            return screen_command(args, settings)
        if args.command == "notes":
            from medeventgraph.cli.notes import run_notes

            return run_notes(args, settings)
        from medeventgraph.cli.commands import timeline, verify_batch, verify_one

        if args.command == "timeline":
            return timeline(args, settings)
        if args.queries:
            return verify_batch(args, settings)
        return verify_one(args, settings)
    except Unavailable as exc:
        sys.stderr.write(f"medeventgraph: {exc}\n")
        return 2
    except InputError as exc:
        return _fail(exc.issue)
    except ValidationError as exc:
        return _fail(Issue("error", "invalid", _validation_summary(exc)))
    except (OSError, ValueError) as exc:
        return _fail(Issue("error", "invalid", str(exc)))


# What a refused model is called on the command line (its pydantic title otherwise).
_MODEL_WORDS = {"VerificationQuery": "query", "Settings": "settings (MEG_* environment variables or --config)"}


def _validation_summary(exc: ValidationError) -> str:
    what = _MODEL_WORDS.get(exc.title, exc.title)
    parts = [f"{'.'.join(str(x) for x in e['loc']) or what}: {e['msg']}" for e in exc.errors()[:5]]
    return f"invalid {what}: " + "; ".join(parts)


def _schema(which: str) -> int:
    if which == "query":
        from medeventgraph.core import VerificationQuery as model
    else:
        from medeventgraph.core import Verdict as model
    sys.stdout.write(orjson.dumps(model.model_json_schema(by_alias=True), option=orjson.OPT_INDENT_2).decode() + "\n")
    return 0

