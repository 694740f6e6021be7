"""Synthetic secrets, one generator per family (DESIGN.md section 8 and issue 14), in the real
token formats; random but seeded, so every run sees the same tokens.

Built from pieces at run time so that no file in the repository looks like a leak. Shared by
tests/reliability (a few per family) and bench/bench_secrets.py (>= 30 per family).
"""

from __future__ import annotations

import base64
import json
import random
import string

ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits
LOWER = string.ascii_lowercase + string.digits
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
HEX = "0123456789abcdef"


def _s(rng: random.Random, n: int, alphabet: str = ALNUM) -> str:
    # a digit and both cases up front, as most real tokens have them somewhere
    head = "".join(c for c in "Q7k" if c in alphabet)
    return head + "".join(rng.choices(alphabet, k=n - len(head)))


def _b64url(obj) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


def _pem(rng, kind):
    body = "\n".join(_s(rng, 64, B64) for _ in range(rng.randint(3, 12))) + "\n" + _s(rng, 20, B64) + "=="
    head = f"{kind} PRIVATE KEY".strip()
    return "-----BEGIN " + head + "-----\n" + body + "\n-----END " + head + "-----"


def _gcp_json(rng):
    key = "-----BEGIN " + "PRIVATE KEY-----\n" + "\n".join(_s(rng, 64, B64) for _ in range(6)) + "\n-----END " + "PRIVATE KEY-----\n"
    document = json.dumps({"type": "service_account", "project_id": f"proj-{rng.randint(100, 999)}",
                           "private_key_id": _s(rng, 40, HEX), "private_key": key,
                           "client_email": f"ci@proj-{rng.randint(100, 999)}.iam.gserviceaccount.com"}, indent=2)
    # the secret is the key as escaped inside the JSON string; the text holds it already
    return json.dumps(key)[1:-1], "Service account for the nightly export:\n" + document


def _slack(rng):
    n = rng.randrange(6)
    digits = lambda k: "".join(rng.choices(string.digits, k=k))  # noqa: E731
    if n == 0:
        return "xox" + "b-" + digits(12) + "-" + digits(13) + "-" + _s(rng, 24)
    if n == 1:
        return "xox" + "p-" + digits(12) + "-" + digits(12) + "-" + digits(13) + "-" + _s(rng, 32, HEX)
    if n == 2:
        return "xa" + "pp-1-A" + _s(rng, 10, UPPER) + "-" + digits(13) + "-" + _s(rng, 64, HEX)
    if n == 3:
        return "xox" + "e.xoxp-1-" + _s(rng, 140, ALNUM)
    if n == 4:
        return "xox" + "e-1-" + _s(rng, 146, ALNUM)
    return "xox" + "a-2-" + digits(12) + "-" + _s(rng, 30)


FAMILIES = {
    "private-key": lambda r: (_pem(r, r.choice(["RSA", "EC", "OPENSSH", "", "DSA", "ENCRYPTED"])),
                              "Deploy key for the build box:\n{}\nrotate it yearly"),
    "gcp-service-account": _gcp_json,
    "aws-access-key-id": lambda r: (r.choice(["AKIA", "ASIA"]) + _s(r, 16, UPPER), "the deploy uses {} for uploads"),
    "aws-secret-access-key": lambda r: (_s(r, 40, B64), "aws_secret_access_key = {}"),
    "github": lambda r: (r.choice(["ghp_", "gho_", "ghs_", "ghu_", "ghr_"]) + _s(r, 36) if r.random() < .7
                         else "github_pat_" + _s(r, 22) + "_" + _s(r, 59), "CI pushes tags with {} (repo scope)"),
    "gitlab": lambda r: ("glpat-" + _s(r, 20, URLSAFE), "mirror job authenticates with {}"),
    "slack": lambda r: (_slack(r), "alerts bot posts with {} in #ops"),
    "slack-webhook": lambda r: ("https://hooks.slack.com/services/T" + _s(r, 9, UPPER) + "/B" + _s(r, 11, UPPER)
                                + "/" + _s(r, 24), "deploy notices go to {}"),
    "stripe": lambda r: (r.choice(["sk_", "rk_"]) + r.choice(["live_", "test_"]) + _s(r, r.choice([24, 99])),
                         "billing tests hit Stripe with {}"),
    "openai": lambda r: ("sk-" + r.choice(["proj-", "svcacct-", ""]) + _s(r, 48, URLSAFE),
                         "the summariser calls OpenAI with {}"),
    "anthropic": lambda r: ("sk-ant-" + r.choice(["api03-", "oat01-", "admin01-", "ort01-"]) + _s(r, 93, URLSAFE) + "AA",
                            "eval harness key: {}"),
    "gcp-api-key": lambda r: ("AIza" + _s(r, 35, URLSAFE), "maps widget key {} is restricted"),
    "npm": lambda r: ("npm_" + _s(r, 36), "publish with {} from the release job"),
    "pypi": lambda r: ("pypi-" + "AgEIcHlwaS5vcmc" + _s(r, 70, URLSAFE), "twine uses {}"),
    "huggingface": lambda r: ("hf_" + _s(r, 34, ALNUM), "model download needs {}"),
    "jwt": lambda r: (_b64url({"alg": "HS256", "typ": "JWT"}) + "." + _b64url({"sub": _s(r, 8), "iat": r.randint(1, 2**31)})
                      + "." + _s(r, 43, URLSAFE), "the admin session cookie was {} yesterday"),
    "sendgrid": lambda r: ("SG." + _s(r, 22, URLSAFE) + "." + _s(r, 43, URLSAFE), "mailer key {}"),
    "twilio-api-key": lambda r: ("SK" + (_s(r, 32, HEX) if r.random() < .5 else _s(r, 32, HEX).upper()),
                                 "SMS fallback uses {}"),
    "twilio-auth-token": lambda r: (_s(r, 32, HEX), r.choice(["TWILIO_AUTH_TOKEN={}", "twilio_auth_token: {}",
                                                               'TWILIO_TOKEN = "{}"'])),
    "azure-storage-key": lambda r: (_s(r, 86, B64) + "==", r.choice(
        ["AZURE_STORAGE_KEY={}", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={};EndpointSuffix=core.windows.net",
         'azure_storage_account_key: "{}"'])),
    "azure-sas": lambda r: (_s(r, 40, ALNUM) + "%3D", "https://acct.blob.core.windows.net/c/f.zip?sv=2022-11-02&se=2030-01-01"
                            "&sr=b&sp=r&sig={}"),
    "url-credentials": lambda r: (_s(r, 16), r.choice(["prod DB is postgres://app:{}@db.internal:5432/prod",
                                                      "mirror: https://deploy:{}@git.example.org/x.git"])),
}


def tokens(family: str, n: int, seed: int = 0) -> list[tuple[str, str]]:
    """n (secret, text holding it) pairs of one family."""
    rng = random.Random(f"{family}-{seed}")
    out = []
    for _ in range(n):
        secret, template = FAMILIES[family](rng)
        out.append((secret, template.replace("{}", secret)))
    return out


def leaked(secret: str, text: str) -> bool:
    """Does any 12-character piece of the secret's random part (the last third: prefixes such as
    `sk-ant-api03-`, a JWT's header and payload are alike in every token) appear in text?"""
    core = "".join(secret.split())
    core = core[-max(12, len(core) // 3):]
    return any(core[i:i + 12] in text for i in range(0, max(1, len(core) - 11), 4))
