"""Issue 22.4: limits meant for one person are keyed on the network a person holds, through the
real server: 120 identities came in under a second from five loopback addresses, and over IPv6
one person holds a whole /64. Loopback is one key (unless a trusted proxy forwards another
address), an IPv6 /64 is one key, IPv4 is keyed on a configurable prefix, and the server has a
global cap on new identities per minute."""

from __future__ import annotations

import httpx
import pytest

from server.core.ratelimit import network_key


@pytest.mark.parametrize("address, key", [
    ("127.0.0.1", "loopback"), ("127.0.0.5", "loopback"), ("::1", "loopback"),
    ("::ffff:127.0.0.2", "loopback"), ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
    ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"), ("198.51.100.7", "198.51.100.7/32"),
    ("::ffff:198.51.100.7", "198.51.100.7/32"), ("testclient", "testclient"),
])
def test_network_key(address, key):
    assert network_key(address) == key


def test_an_ipv4_prefix_is_configurable():
    assert network_key("198.51.100.7", ipv4_prefix=24) == network_key("198.51.100.200", ipv4_prefix=24)
    assert network_key("198.51.100.7", ipv4_prefix=24) != network_key("198.51.101.7", ipv4_prefix=24)


def _mint(server, source=None, forwarded=None):
    transport = httpx.HTTPTransport(local_address=source) if source else None
    headers = {"X-Forwarded-For": forwarded} if forwarded else {}
    with httpx.Client(base_url=server.url, transport=transport, timeout=30) as http:
        return http.post("/api/clients", headers=headers).status_code


def test_five_loopback_addresses_are_one_network(make_server):
    server = make_server(KAEL_MINT_LIMIT="4/3600").start()
    codes = [_mint(server, f"127.0.0.{2 + i % 5}") for i in range(10)]
    assert codes.count(201) == 4 and codes.count(429) == 6, codes


def test_an_ipv6_64_is_one_network_behind_a_trusted_proxy(make_server):
    server = make_server(KAEL_MINT_LIMIT="3/3600", KAEL_TRUSTED_PROXIES="127.0.0.1").start()
    same = [_mint(server, forwarded=f"2001:db8:0:7::{i + 1:x}") for i in range(5)]
    assert same == [201, 201, 201, 429, 429], same
    assert _mint(server, forwarded="2001:db8:0:8::1") == 201  # the next /64: another subscriber
    ipv4 = [_mint(server, forwarded=f"198.51.100.{i + 1}") for i in range(4)]
    assert ipv4 == [201] * 4  # IPv4 keys on each address by default


def test_new_identities_have_a_global_cap_per_minute(make_server):
    server = make_server(KAEL_MINT_GLOBAL_LIMIT="5/60", KAEL_TRUSTED_PROXIES="127.0.0.1").start()
    codes = [_mint(server, forwarded=f"203.0.113.{i + 1}") for i in range(7)]
    assert codes == [201] * 5 + [429] * 2, codes
