"""The other side of Parley's push encryption, from the `http-ece` package (PyPI): decrypts what
ParleyCrypto sealed, and seals what ParleyKit must open. Arguments and output are base64url.

    ece.py decrypt BODY RECEIVER_PRIVATE AUTH_SECRET      -> the plaintext
    ece.py encrypt PLAINTEXT RECEIVER_PUBLIC AUTH_SECRET  -> an aes128gcm body
"""
import base64
import sys

import http_ece
from cryptography.hazmat.primitives.asymmetric import ec


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def main(mode, first, key, auth):
    if mode == "decrypt":
        private = ec.derive_private_key(int.from_bytes(unb64(key), "big"), ec.SECP256R1())
        print(b64(http_ece.decrypt(unb64(first), private_key=private, auth_secret=unb64(auth), version="aes128gcm")))
    elif mode == "encrypt":
        sender = ec.generate_private_key(ec.SECP256R1())
        print(b64(http_ece.encrypt(unb64(first), private_key=sender, dh=unb64(key), auth_secret=unb64(auth), version="aes128gcm")))
    else:
        raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    main(*sys.argv[1:])
