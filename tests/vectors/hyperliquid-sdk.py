# Regenerates hyperliquid-sdk.json's "spotSend" cases with the official Hyperliquid Python SDK
# (PyPI hyperliquid-python-sdk 0.23.0, repository commit 7ee976d). Its tests/signing_test.py has
# no SpotSend vector, so these come from its own sign_spot_transfer_action on its test key; the
# "sdkTests" cases are copied from tests/signing_test.py as they stand there.
#   python3 -m venv v && v/bin/pip install hyperliquid-python-sdk==0.23.0 && v/bin/python hyperliquid-sdk.py
import json
import eth_account
from eth_account.messages import encode_typed_data, _hash_eip191_message
from hyperliquid.utils.signing import (
    SPOT_TRANSFER_SIGN_TYPES, sign_spot_transfer_action, user_signed_payload)

KEY = "0x0123456789012345678901234567890123456789012345678901234567890123"
wallet = eth_account.Account.from_key(KEY)
cases = []
for mainnet in (True, False):
    for amount in ("25", "10.5", "0.000001"):
        action = {"destination": "0xeb9426c82652bd8dd95742027ad301a545eaf800", "amount": amount,
                  "token": "USDC:0x6d1e7cde53ba9467b783cb7c530ce054", "time": 1687816341423,
                  "type": "spotSend"}
        sig = sign_spot_transfer_action(wallet, action, mainnet)
        data = user_signed_payload("HyperliquidTransaction:SpotSend", SPOT_TRANSFER_SIGN_TYPES, action)
        digest = "0x" + _hash_eip191_message(encode_typed_data(full_message=data)).hex()
        cases.append({"isMainnet": mainnet, "action": action, "digest": digest, "signature": sig})
print(json.dumps(cases, indent=2))
