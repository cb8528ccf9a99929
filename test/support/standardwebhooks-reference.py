"""Verifies one webhook delivery with the reference Python `standardwebhooks` library.

Reads {"secret", "headers", "body"} as JSON on stdin; prints {"ok": true, "payload"} or
{"ok": false, "error"}. The library also refuses a timestamp more than 5 minutes from now.
"""
import json
import sys

from standardwebhooks.webhooks import Webhook

request = json.load(sys.stdin)
try:
    # Parsed apart from verify, so a body that is not JSON cannot pass for a bad signature.
    Webhook(request["secret"]).verify(request["body"], request["headers"], json_parse=False)
except Exception as err:  # WebhookVerificationError, and others for malformed input
    print(json.dumps({"ok": False, "error": f"{type(err).__name__}: {err}"}))
else:
    try:
        payload = json.loads(request["body"])
    except ValueError:
        payload = request["body"]
    print(json.dumps({"ok": True, "payload": payload}))
