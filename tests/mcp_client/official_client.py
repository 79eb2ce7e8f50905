"""The official Python MCP SDK (`mcp`, pinned in requirements.txt) against the real binary.

Run by tests/it/mcp_official.rs, which starts the simulator, opens a wallet with positions and
passes its address; set up with tests/mcp_client/setup.sh. For each transport (stdio: the
binary as a child process; HTTP: `mcp --http` on a loopback port) and each protocol mode —
2025-06-18 and 2025-11-25 over `initialize`, 2026-07-28 pinned (stateless, no handshake) and
the SDK's default `auto` (probes `server/discover`, which must land on 2026-07-28) — it checks
the announced name and capabilities, lists the tools, calls every one with valid arguments
(ARGS below) and validates each `structuredContent` against the tool's `outputSchema` with
`jsonschema`. Any failure exits non-zero with what went wrong; the last line says what ran.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import subprocess
import sys
import time
from typing import Any

import jsonschema
import mcp.client.session as session_module
import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

# Valid arguments for every tool, keyed by name; `{wallet}` and `{intent}` are replaced by the
# simulator wallet (with positions) and one of its intents. A listed tool missing here fails
# the run: add arguments for it. The risk seed's four paid tools take the same arguments as
# their previews (the seed: "Input schemas mirror the HTTP parameters").
ARGS: dict[str, list[dict[str, Any]]] = {
    # sdk
    "papertrade_markets": [{}, {"market": "ETH"}],
    "papertrade_estimate_position": [
        {"market": "BTC", "side": "long", "marginUsd": 100, "leverage": 500, "priceMovePct": 0.1},
        {"market": "ETH", "side": "short", "marginUsd": 20, "leverage": 5},
    ],
    "papertrade_paper_mint": [{"lossBasisUsd": 250}],
    "papertrade_wallet_positions": [{"address": "{wallet}"}],
    "papertrade_protocol_health": [{}],
    "papertrade_prepare_open": [
        {"user": "{wallet}", "market": "BTC", "side": "long", "marginUsd": 100, "leverage": 500}
    ],
    "papertrade_build_typed_data": [
        {
            "type": "Close",
            "message": {"user": "0x14791697260e4c9a71f18484c9f997b308e59325", "positionIds": ["400013"]},
        }
    ],
    # terminal
    "list_markets": [{}],
    "get_protocol_status": [{}],
    "get_wallet_positions": [{"address": "{wallet}"}],
    "quote_open_position": [{"market": "btc", "side": "long", "marginUsd": 50, "leverage": 10}],
    "quote_leverage_ladder": [{"market": "ETH", "side": "short", "marginUsd": 25}],
    "quote_close_position": [
        {
            "market": "BTC",
            "side": "long",
            "entryPrice": 82800.3,
            "exitPrice": 82883.1,
            "marginUsd": 100,
            "leverage": 500,
        }
    ],
    "build_trade_plan": [
        {"market": "ETH", "side": "short", "marginUsd": 25, "leverage": 5, "address": "{wallet}"}
    ],
    "get_recent_trades": [{"limit": 5}],
    "get_candles": [{"market": "BTC", "interval": "1h", "limit": 5}],
    # explorer
    "search": [{"query": "{wallet}"}],
    "get_wallet": [{"address": "{wallet}"}],
    "get_positions": [{"address": "{wallet}"}],
    "get_intents": [{"address": "{wallet}"}],
    "lookup_intent": [{"intent_id": "{intent}", "wallet": "{wallet}"}],
    # An intent id is no HyperEVM transaction: answered found false (tests/it/mcp.rs has a batch).
    "decode_transaction": [{"tx_hash": "{intent}"}],
    "get_leaderboard": [{"window": "all", "sort_key": "totalVolume", "page": 0}],
    "get_trade_history": [{"address": "{wallet}", "filter": "all"}],
    "get_protocol_overview": [{"recent_trades": 3}],
    # risk (free previews, then the paid tools)
    "get_markets": [{}],
    "get_service_status": [{}],
    "preview_wallet_risk": [{"address": "{wallet}"}],
    "preview_liquidations_nearby": [{"market": "BTC", "pct": 5, "accounts": 5}],
    "preview_estimate_position": [
        {"market": "ETH", "side": "short", "marginUsd": 20, "leverage": 50, "exitMovePct": -1}
    ],
    "preview_top_traders": [{"window": "24h", "limit": 3}],
    "wallet_risk": [{"address": "{wallet}"}],
    "liquidations_nearby": [{"market": "BTC", "pct": 5, "accounts": 5}],
    "estimate_position": [
        {"market": "ETH", "side": "short", "marginUsd": 20, "leverage": 50, "exitMovePct": -1}
    ],
    "top_traders": [{"window": "24h", "limit": 3}],
    # liquidations
    "get_bust_map": [{"market": "BTC", "wallets": 5, "cascadePercent": 5}],
    "get_closest_to_bust": [{"market": "all", "limit": 5, "side": "both"}],
    "get_bust_cluster_summary": [{"market": "BTC", "clusters": 2}],
    "get_wallet_distance_to_bust": [{"wallet": "{wallet}"}],
    "get_protocol_liquidation_map": [{"market": "BTC"}],
}

# (mode label, the Client's `mode=`, the version the connection must end on)
MODES = [
    ("2025-06-18", "legacy", "2025-06-18"),
    ("2025-11-25", "legacy", "2025-11-25"),
    ("2026-07-28", "2026-07-28", "2026-07-28"),
    ("auto", "auto", "2026-07-28"),
]
CAPABILITIES = {"tools": {"listChanged": False}}


class Failure(Exception):
    pass


def fill(value: Any, wallet: str, intent: str) -> Any:
    if isinstance(value, str):
        return value.replace("{wallet}", wallet).replace("{intent}", intent)
    if isinstance(value, list):
        return [fill(v, wallet, intent) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, wallet, intent) for k, v in value.items()}
    return value


def offer(version: str) -> None:
    """The version a `legacy` Client offers in `initialize`: the SDK offers its newest
    handshake version (2025-11-25); a client pinned to an older one is what is tested."""
    session_module.LATEST_HANDSHAKE_VERSION = version


async def identity(client: Client, mode: str) -> tuple[Any, Any]:
    """The server's capabilities and serverInfo as this connection learnt them. A Client pinned
    to 2026-07-28 skips the probe (it assumes empty capabilities), so it asks `server/discover`."""
    if mode not in MODERN_PROTOCOL_VERSIONS:
        return client.server_capabilities, client.server_info
    discovered = types.DiscoverResult.model_validate(await client.session.send_discover(mode))
    if mode not in discovered.supported_versions:
        raise Failure(f"server/discover lists {discovered.supported_versions}, not {mode}")
    info = (discovered.meta or {}).get("io.modelcontextprotocol/serverInfo")
    return discovered.capabilities, types.Implementation.model_validate(info) if info else None


async def exercise(client: Client, label: str, mode: str, want_version: str, wallet: str, intent: str) -> int:
    if client.protocol_version != want_version:
        raise Failure(f"{label}: negotiated {client.protocol_version}, expected {want_version}")
    capabilities, info = await identity(client, mode)
    caps = capabilities.model_dump(by_alias=True, exclude_none=True, mode="json")
    if caps != CAPABILITIES:
        raise Failure(f"{label}: capabilities {caps}, expected {CAPABILITIES}")
    if info is None or info.name != "papertrade-tui":
        raise Failure(f"{label}: serverInfo {info}")
    tools = []
    cursor = None
    while True:
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            break
    if not tools:
        raise Failure(f"{label}: tools/list is empty")
    missing = [t.name for t in tools if t.name not in ARGS]
    if missing:
        raise Failure(
            f"{label}: listed tools with no arguments in ARGS of {__file__}: {missing}; "
            "add valid arguments for each"
        )
    calls = 0
    for tool in tools:
        if tool.output_schema is None:
            raise Failure(f"{label}: {tool.name} has no outputSchema")
        output = jsonschema.validators.validator_for(tool.output_schema)(tool.output_schema)
        inputs = jsonschema.validators.validator_for(tool.input_schema)(tool.input_schema)
        for arguments in fill(ARGS[tool.name], wallet, intent):
            problems = [e.message for e in inputs.iter_errors(arguments)]
            if problems:
                raise Failure(f"{label}: ARGS for {tool.name} break its inputSchema: {problems}")
            result = await client.call_tool(tool.name, arguments)
            text = " ".join(getattr(c, "text", "") for c in result.content)
            if result.is_error:
                raise Failure(f"{label}: {tool.name}({arguments}) failed: {text}")
            if result.structured_content is None:
                raise Failure(f"{label}: {tool.name} returned no structuredContent")
            errors = [
                f"{e.message} at {'/'.join(map(str, e.absolute_path))}"
                for e in output.iter_errors(result.structured_content)
            ]
            if errors:
                raise Failure(f"{label}: {tool.name} structuredContent breaks its outputSchema: {errors}")
            if not text:
                raise Failure(f"{label}: {tool.name} returned no text content")
            calls += 1
    return calls


def server_args(args: argparse.Namespace) -> list[str]:
    return ["--api", args.api, "--info-url", args.info_url, "--rpc-url", args.rpc_url]


def server_env(args: argparse.Namespace) -> dict[str, str]:
    env = {"HOME": args.home, "XDG_CONFIG_HOME": os.path.join(args.home, "config")}
    env["PAPERTRADE_TUI_DATA_DIR"] = os.path.join(args.home, "data")
    return env


def start_http(args: argparse.Namespace) -> tuple[subprocess.Popen[str], str]:
    """`mcp --http` on a free loopback port; its one stderr line says where."""
    process = subprocess.Popen(
        [args.binary, "mcp", "--http", "127.0.0.1:0", "--rate-per-minute", "100000", *server_args(args)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=server_env(args),
    )
    assert process.stderr is not None
    line = process.stderr.readline()
    found = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line)
    if not found:
        process.kill()
        raise Failure(f"mcp --http did not say where it serves: {line!r}")
    return process, found.group(1)


async def run(args: argparse.Namespace) -> None:
    started = time.monotonic()
    total = 0
    ran = []
    for transport in ("stdio", "http"):
        http = None
        try:
            if transport == "http":
                http, url = start_http(args)
            for label, mode, want in MODES:
                offer(label if mode == "legacy" else "2025-11-25")
                if transport == "stdio":
                    server: Any = StdioServerParameters(
                        command=args.binary, args=["mcp", *server_args(args)], env=server_env(args)
                    )
                else:
                    server = url
                name = f"{transport} {label}"
                async with Client(server, mode=mode, cache=None) as client:
                    total += await exercise(client, name, mode, want, args.wallet, args.intent)
                ran.append(name)
        finally:
            if http is not None:
                http.terminate()
                http.wait(timeout=10)
    print(f"official MCP client: {total} calls validated in {time.monotonic() - started:.1f} s over {', '.join(ran)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--home", required=True)
    parser.add_argument("--api", required=True)
    parser.add_argument("--info-url", required=True)
    parser.add_argument("--rpc-url", required=True)
    parser.add_argument("--wallet", required=True)
    parser.add_argument("--intent", required=True)
    args = parser.parse_args()
    try:
        asyncio.run(run(args))
    except BaseException as error:  # the SDK's task groups wrap failures in exception groups
        failure = first_failure(error)
        if failure is None:
            raise
        print(f"FAILED: {failure}", file=sys.stderr)
        sys.exit(1)


def first_failure(error: BaseException) -> Failure | None:
    if isinstance(error, Failure):
        return error
    for inner in getattr(error, "exceptions", ()):
        found = first_failure(inner)
        if found is not None:
            return found
    return None


if __name__ == "__main__":
    main()
